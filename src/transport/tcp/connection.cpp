#include "transport/tcp/connection.hpp"

#include <linux/sockios.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>

#include "common/deadline.hpp"
#include "common/log.hpp"
#include "common/socket_util.hpp"
#include "transport/tcp/congestion_control.hpp"

namespace rcoll::transport::tcp {

namespace {

// Bytes this socket has sent that the peer's kernel has not acknowledged.
int unacknowledged(int fd) {
  int bytes = 0;
  return ::ioctl(fd, SIOCOUTQ, &bytes) == 0 ? bytes : 0;
}

// Reads and drops what has arrived; false at EOF or on an error.
bool drop_incoming(int fd) {
  char sink[4096];
  for (;;) {
    ssize_t n = ::recv(fd, sink, sizeof(sink), MSG_DONTWAIT);
    if (n > 0) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
  }
}

// A rank that ends first (the root of a bcast, say) may still have frames in
// its kernel send queue that the peer has not read. Closing a socket with
// unread incoming bytes (the peer's CREDIT frames) makes the kernel send a
// reset, which throws that queue away and fails the peer's receives. So:
// send FIN behind the data, and keep reading (and dropping) until the peer
// has acknowledged everything, or the linger bound passes.
void close_gracefully(int fd) noexcept {
  constexpr auto linger = std::chrono::seconds(2);
  ::shutdown(fd, SHUT_WR);
  const Deadline deadline = Deadline::after(linger);
  while (drop_incoming(fd) && unacknowledged(fd) > 0 && !deadline.expired()) {
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, 5);
  }
  drop_incoming(fd);
}

}  // namespace

Connection::Connection(int self, int rank, Poller& poller, SendBuffer send_buffer)
    : self_(self), rank_(rank), poller_(poller), send_buffer_(std::move(send_buffer)) {
  if (self == rank) where_ = "self";
}

Connection::~Connection() {
  if (!fd_) return;
  poller_.remove(fd_.get());
  close_gracefully(fd_.get());
}

void Connection::push_control(FrameType type, Tag tag, std::size_t length, std::uint64_t id, std::uint8_t flags) {
  FrameHeader header;
  header.type = type;
  header.tag = tag;
  header.length = length;
  header.id = id;
  header.flags = flags;
  tx_.push(header, nullptr, 0);
}

void Connection::attach(UniqueFd fd) {
  fd_ = std::move(fd);
  // The receive buffer keeps the kernel's autotuning (SO_RCVBUF would turn
  // it off); the send buffer is set here and then per frame (flush()); a
  // connection on this host does not pace (congestion_control.hpp).
  size_send_buffer(send_buffer_.bytes);
  const std::string congestion = choose_congestion_control(fd_.get());
  log::debug("rank {}: tcp connection to rank {} ({}): congestion control {}", self_, rank_, where_, congestion);
  want_write_ = false;
  poller_.modify(fd_.get(), make_key(SocketRole::peer, static_cast<std::uint32_t>(rank_)), false);
}

SendQueue::FlushResult Connection::flush() {
  if (!fd_) return {};
  if (const FrameHeader* next = tx_.front()) size_send_buffer(send_buffer_.size_for(*next));
  SendQueue::FlushResult result = tx_.flush(fd_.get());
  if (result.error == 0) watch_writes(!tx_.empty());
  return result;
}

std::vector<RequestPtr> Connection::close() {
  if (fd_) {
    poller_.remove(fd_.get());
    fd_.reset();
  }
  return tx_.take_requests();
}

void Connection::watch_writes(bool want_write) {
  if (want_write == want_write_) return;
  want_write_ = want_write;
  poller_.modify(fd_.get(), make_key(SocketRole::peer, static_cast<std::uint32_t>(rank_)), want_write);
}

// Sets the kernel send buffer to `bytes` unless it is that already (0:
// leave it). On failure the socket keeps what it has and stops resizing.
void Connection::size_send_buffer(std::size_t bytes) {
  if (bytes == 0 || bytes == send_buffer_now_) return;
  if (int error = SendBuffer::apply(fd_.get(), bytes); error != 0) {
    log::warn("rank {}: tcp connection to rank {} ({}): cannot set the send buffer to {} bytes ({}); left as it is",
              self_, rank_, where_, bytes, net::errno_text(error));
    send_buffer_ = {};
    return;
  }
  send_buffer_now_ = bytes;
}

}  // namespace rcoll::transport::tcp
