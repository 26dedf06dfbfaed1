#include "transport/tcp/connection.hpp"

#include "common/log.hpp"
#include "common/socket_util.hpp"

namespace rcoll::transport::tcp {

Connection::Connection(int self, int rank, Poller& poller, SendBuffer send_buffer)
    : self_(self), rank_(rank), poller_(poller), send_buffer_(std::move(send_buffer)) {
  if (self == rank) where_ = "self";
}

Connection::~Connection() {
  if (fd_) poller_.remove(fd_.get());
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
  // it off); the send buffer is set here and then per frame (flush()).
  size_send_buffer(send_buffer_.bytes);
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
