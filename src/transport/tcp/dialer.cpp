#include "transport/tcp/dialer.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "common/log.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"
#include "transport/tcp/handshake.hpp"

namespace rcoll::transport::tcp {
namespace {

constexpr std::chrono::milliseconds max_delay{100};

// Transient network states. Not ECONNREFUSED: every rank listens before it
// joins the job and dials only after, so a refusal means the peer's
// process (or its communicator) is gone, and retrying would only delay
// the error until the connect timeout.
bool retryable(int error) { return error == ETIMEDOUT || error == EAGAIN || error == ECONNABORTED; }

// How an acceptor's close of a connection it has not answered shows.
bool lost(int error) { return error == ECONNRESET || error == EPIPE || error == ECONNABORTED; }

}  // namespace

std::string_view to_string(Dialer::State state) noexcept {
  switch (state) {
    case Dialer::State::connecting: return "connecting";
    case Dialer::State::backoff: return "backoff";
    case Dialer::State::awaiting_challenge: return "awaiting_challenge";
    case Dialer::State::sending_hello: return "sending_hello";
    case Dialer::State::awaiting_reply: return "awaiting_reply";
    case Dialer::State::connected: return "connected";
    case Dialer::State::yielded: return "yielded";
    case Dialer::State::failed: return "failed";
  }
  return "?";
}

Dialer::Dialer(Params params, Poller& poller)
    : params_(std::move(params)), poller_(poller), deadline_(Clock::now() + params_.timeout) {
  attempt();
}

Dialer::~Dialer() { close_socket(); }

void Dialer::set_state(State state) {
  log::trace("rank {}: tcp dial rank {}: {} -> {}", params_.self, params_.peer, to_string(state_), to_string(state));
  state_ = state;
}

void Dialer::close_socket() {
  if (!fd_) return;
  poller_.remove(fd_.get());
  fd_.reset();
}

void Dialer::fail(std::string cause) {
  close_socket();
  cause_ = std::move(cause);
  set_state(State::failed);
}

void Dialer::attempt() {
  int error = 0;
  challenge_got_ = hello_sent_ = reply_got_ = 0;
  try {
    fd_ = net::connect_nonblocking(params_.address, error);
    if (error == 0) poller_.add(fd_.get(), make_key(SocketRole::dialer, static_cast<std::uint32_t>(params_.peer)), true);
  } catch (const Error& e) {
    return fail(e.what());
  }
  if (error != 0) return after_connect_error(error);
  set_state(State::connecting);
}

void Dialer::after_connect_error(int error) {
  close_socket();
  if (!retryable(error) || Clock::now() >= deadline_) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(params_.timeout).count();
    return fail("connect: " + net::errno_text(error) +
                (retryable(error) ? "; gave up after " + std::to_string(ms) + " ms"
                 : error == ECONNREFUSED ? " (the peer no longer listens: its process or communicator is gone)"
                                         : std::string()));
  }
  retry_later();
}

// The acceptor closed (or reset) the connection before answering: it was
// evicted by a flood of strangers, or it timed out waiting for this side's
// Hello. The peer still listens, so the dial starts over.
void Dialer::after_lost_handshake(const std::string& what) {
  close_socket();
  ++lost_handshakes_;
  if (Clock::now() >= deadline_) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(params_.timeout).count();
    return fail(what + " (" + std::to_string(lost_handshakes_) + " connections closed before an answer in " +
                std::to_string(ms) + " ms: the peer does not take this rank's proof of the job token, or is flooded)");
  }
  log::debug("rank {}: tcp dial rank {}: {}; dialing again", params_.self, params_.peer, what);
  retry_later();
}

void Dialer::retry_later() {
  retry_at_ = std::min(Clock::now() + delay_, deadline_);
  delay_ = std::min(delay_ * 2, max_delay);
  set_state(State::backoff);
}

void Dialer::on_timer(Clock::time_point now) {
  if (state_ == State::backoff && now >= retry_at_) attempt();
}

void Dialer::on_events(std::uint32_t events) {
  if (state_ == State::connecting && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) finish_connect();
  if (state_ == State::awaiting_challenge && (events & (EPOLLIN | EPOLLERR | EPOLLHUP))) read_challenge();
  if (state_ == State::sending_hello && (events & EPOLLOUT)) send_hello();
  if (state_ == State::awaiting_reply && (events & (EPOLLIN | EPOLLERR | EPOLLHUP))) read_reply();
}

void Dialer::finish_connect() {
  int error = net::socket_error(fd_.get());
  if (error != 0) return after_connect_error(error);
  watch(false);
  set_state(State::awaiting_challenge);
}

void Dialer::watch(bool writable) {
  poller_.modify(fd_.get(), make_key(SocketRole::dialer, static_cast<std::uint32_t>(params_.peer)), writable);
}

// Reads one handshake message; true once it is whole. A close or a reset
// means the acceptor dropped this attempt (dial again); other errors fail.
bool Dialer::receive(void* message, std::size_t bytes, std::size_t& got, const std::string& step) {
  int error = 0;
  switch (read_exact(fd_.get(), message, bytes, got, error)) {
    case ReadStatus::more: return false;
    case ReadStatus::done: return true;
    case ReadStatus::closed: after_lost_handshake("closed while " + step); return false;
    case ReadStatus::error:
      if (lost(error)) after_lost_handshake(step + ": " + net::errno_text(error));
      else fail(step + ": " + net::errno_text(error));
      return false;
  }
  return false;
}

void Dialer::read_challenge() {
  if (!receive(&challenge_, sizeof(challenge_), challenge_got_, "waiting for its challenge")) return;
  if (challenge_.magic != hello_magic || challenge_.version != wire_version || challenge_.kind != HelloKind::challenge)
    return fail("what listens there is not an rcoll transport of wire version " + std::to_string(wire_version) +
                " (its first message has version " + std::to_string(challenge_.version) + ")");
  hello_ = make_hello(params_.self, params_.size, challenge_.nonce, params_.job_token);
  set_state(State::sending_hello);
  send_hello();
}

void Dialer::send_hello() {
  const auto* bytes = reinterpret_cast<const std::byte*>(&hello_);
  while (hello_sent_ < sizeof(hello_)) {
    ssize_t n = ::send(fd_.get(), bytes + hello_sent_, sizeof(hello_) - hello_sent_, MSG_NOSIGNAL);
    if (n > 0) {
      hello_sent_ += static_cast<std::size_t>(n);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return watch(true);
    } else if (errno != EINTR) {
      if (lost(errno)) return after_lost_handshake("sending the handshake: " + net::errno_text(errno));
      return fail("sending the handshake: " + net::errno_text(errno));
    }
  }
  watch(false);
  set_state(State::awaiting_reply);
}

void Dialer::read_reply() {
  if (receive(&reply_, sizeof(reply_), reply_got_, "waiting for the answer to the handshake")) check_reply();
}

// Nothing from the acceptor counts before its proof: a refusal that does
// not prove the token is as false as an accept.
void Dialer::check_reply() {
  if (reply_.magic != hello_magic || reply_.version != wire_version ||
      (reply_.kind != HelloKind::accept && reply_.kind != HelloKind::refuse))
    return fail("the handshake answer is not from an rcoll transport of wire version " + std::to_string(wire_version));
  if (!verify_reply(reply_, hello_, challenge_.nonce, params_.job_token))
    return fail("refusing it: its answer does not prove this job's token (it is another job's rank, or a "
                "process that is not rank " + std::to_string(params_.peer) + " of this job)");
  if (reply_.kind == HelloKind::refuse && reply_.reason == RefuseReason::duplicate && params_.peer < params_.self) {
    close_socket();
    return set_state(State::yielded);
  }
  if (reply_.kind == HelloKind::refuse)
    return fail("rank " + std::to_string(params_.peer) + " refused the connection: " +
                std::string(to_string(reply_.reason)));
  if (reply_.rank != params_.peer || reply_.size != params_.size)
    return fail("the answer came from rank " + std::to_string(reply_.rank) + " of " + std::to_string(reply_.size) +
                ", not rank " + std::to_string(params_.peer) + " of " + std::to_string(params_.size));
  set_state(State::connected);
}

}  // namespace rcoll::transport::tcp
