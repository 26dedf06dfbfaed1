#include "bootstrap/server_session.hpp"

#include <sys/socket.h>

#include <cerrno>

#include "common/socket_util.hpp"

namespace rcoll::bootstrap {
namespace {

// Bytes read per readiness event, so one chatty client cannot starve the others.
constexpr std::size_t read_slice = 64 * 1024;
// Sent bytes are dropped from the front of the output buffer once this many
// accumulated, keeping the erase cost amortised.
constexpr std::size_t compact_after = 256 * 1024;
// A client that lets this much output pile up is not reading: drop it
// rather than let it grow the server's memory.
constexpr std::size_t max_backlog = std::size_t{256} << 20;

}  // namespace

ServerSession::ServerSession(UniqueFd fd, Clock::time_point now, Timeouts timeouts, const auth::Nonce& challenge)
    : fd_(std::move(fd)),
      peer_(net::peer_address(fd_.get())),
      peer_ip_(net::peer_ip(fd_.get())),
      io_timeout_(timeouts.io),
      connected_(now),
      hello_deadline_(now + timeouts.hello),
      challenge_(challenge) {}

void ServerSession::read_available(Clock::time_point now) {
  if (dead_ || closing_) return;
  char buffer[read_slice];
  ssize_t got = ::recv(fd_.get(), buffer, sizeof(buffer), 0);
  if (got > 0) {
    if (in_.empty()) frame_started_ = now;
    in_.append(buffer, static_cast<std::size_t>(got));
  } else if (got == 0) {
    kill("closed the connection");
  } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    kill("recv failed: " + net::errno_text(errno));
  }
}

wire::Decoded ServerSession::next_frame(Clock::time_point now) {
  if (dead_ || closing_) return wire::Decoded{};
  wire::Decoded decoded = wire::decode_frame(in_, wire::max_request_payload);
  if (decoded.status == wire::Decoded::Status::complete) {
    in_.erase(0, decoded.consumed);
    // What is left is the start of the next frame: its clock starts now.
    if (!in_.empty()) frame_started_ = now;
  }
  return decoded;
}

void ServerSession::send(std::string frame) {
  if (dead_) return;
  if (out_.size() - out_offset_ + frame.size() > max_backlog) {
    kill("left more than " + std::to_string(max_backlog >> 20) + " MiB of answers unread");
    return;
  }
  if (!wants_write()) last_write_progress_ = Clock::now();
  out_.append(frame);
}

void ServerSession::flush(Clock::time_point now) {
  while (!dead_ && wants_write()) {
    ssize_t sent = ::send(fd_.get(), out_.data() + out_offset_, out_.size() - out_offset_, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) kill("send failed: " + net::errno_text(errno));
      break;
    }
    out_offset_ += static_cast<std::size_t>(sent);
    last_write_progress_ = now;
  }
  if (!wants_write()) {
    out_.clear();
    out_offset_ = 0;
  } else if (out_offset_ >= compact_after) {
    out_.erase(0, out_offset_);
    out_offset_ = 0;
  }
}

void ServerSession::kill(std::string why) {
  if (dead_) return;
  dead_ = true;
  why_dead_ = std::move(why);
}

std::optional<ServerSession::Clock::time_point> ServerSession::io_deadline() const {
  if (dead_) return std::nullopt;
  std::optional<Clock::time_point> deadline;
  auto earliest = [&](Clock::time_point at) { deadline = deadline ? std::min(*deadline, at) : at; };
  if (rank_ < 0 && !closing_) earliest(hello_deadline_);
  if (!in_.empty() && !closing_) earliest(frame_started_ + io_timeout_);
  if (wants_write()) earliest(last_write_progress_ + io_timeout_);
  return deadline;
}

bool ServerSession::check_io_deadline(Clock::time_point now) {
  auto deadline = io_deadline();
  if (!deadline || now < *deadline) return false;
  if (wants_write())
    kill("did not read its answers within " + std::to_string(io_timeout_.count()) + " ms");
  else if (rank_ < 0)
    kill("sent no JOIN in time");
  else
    kill("did not complete a frame within " + std::to_string(io_timeout_.count()) + " ms");
  return true;
}

}  // namespace rcoll::bootstrap
