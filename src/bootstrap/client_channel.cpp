#include "bootstrap/client_channel.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::bootstrap {

ClientChannel::ClientChannel(UniqueFd fd, int rank, std::string server)
    : fd_(std::move(fd)), rank_(rank), server_(std::move(server)) {}

ClientChannel ClientChannel::connect(const sockaddr_in& server, int rank, Deadline deadline) {
  std::string where = net::to_string(server);
  net::ConnectFailure failure;
  UniqueFd fd = net::connect_with_retry(server, deadline, failure);
  if (fd) return ClientChannel(std::move(fd), rank, where);
  if (!failure.retryable) throw IoError(rank, -1, "bootstrap connect to " + where, net::errno_text(failure.error));
  throw TimeoutError("rank " + std::to_string(rank) + ": could not connect to the bootstrap server " + where +
                     " before the deadline (" + std::to_string(failure.attempts) +
                     " attempts, last: " + net::errno_text(failure.error) + ")");
}

void ClientChannel::timed_out(const std::string& step) const {
  throw TimeoutError("rank " + std::to_string(rank_) + ": bootstrap " + step + ": no answer from the server " +
                     server_ + " before the deadline");
}

void ClientChannel::send(const std::string& frame, Deadline deadline, const std::string& step) {
  const int error = net::send_all(fd_.get(), frame, deadline);
  if (error < 0) timed_out(step);
  if (error > 0) {
    broken_ = error == EPIPE || error == ECONNRESET;
    throw IoError(rank_, -1, "bootstrap " + step + ": send to " + server_, net::errno_text(error));
  }
}

void ClientChannel::read_some(const std::string& step) {
  char buffer[64 * 1024];
  ssize_t n = ::recv(fd_.get(), buffer, sizeof(buffer), 0);
  if (n > 0) {
    in_.append(buffer, static_cast<std::size_t>(n));
  } else if (n == 0) {
    broken_ = true;
    throw IoError(rank_, -1, "bootstrap " + step, "the server " + server_ + " closed the connection");
  } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    broken_ = errno == ECONNRESET;
    throw IoError(rank_, -1, "bootstrap " + step + ": recv from " + server_, net::errno_text(errno));
  }
}

wire::Frame ClientChannel::receive(Deadline deadline, const std::string& step) {
  for (;;) {
    wire::Decoded decoded = wire::decode_frame(in_, wire::max_answer_payload);
    if (decoded.status == wire::Decoded::Status::complete) {
      in_.erase(0, decoded.consumed);
      return std::move(decoded.frame);
    }
    if (decoded.status == wire::Decoded::Status::error)
      throw IoError(rank_, -1, "bootstrap " + step, "invalid frame from the server " + server_ + ": " + decoded.detail);
    if (net::wait_fd(fd_.get(), POLLIN, deadline) == 0) timed_out(step);
    read_some(step);
  }
}

}  // namespace rcoll::bootstrap
