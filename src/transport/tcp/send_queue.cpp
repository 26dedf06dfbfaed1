#include "transport/tcp/send_queue.hpp"

#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>

namespace rcoll::transport::tcp {
namespace {

// Frames gathered into one sendmsg; enough to batch many small messages.
constexpr std::size_t max_iov = 64;

}  // namespace

void SendQueue::push(const FrameHeader& header, const void* payload, std::size_t bytes, FrameOwner owner) {
  OutFrame& frame = frames_.emplace_back();
  frame.header = header;
  frame.payload = static_cast<const std::byte*>(payload);
  frame.payload_left = bytes;
  frame.owner = std::move(owner);
}

std::size_t SendQueue::gather(iovec* iov, std::size_t max) const {
  std::size_t count = 0;
  for (const OutFrame& frame : frames_) {
    if (count + 2 > max) break;
    if (frame.header_left > 0) {
      auto* base = reinterpret_cast<const std::byte*>(&frame.header) + (sizeof(FrameHeader) - frame.header_left);
      iov[count++] = {const_cast<std::byte*>(base), frame.header_left};
    }
    if (frame.payload_left > 0) iov[count++] = {const_cast<std::byte*>(frame.payload), frame.payload_left};
  }
  return count;
}

void SendQueue::advance(std::size_t written) {
  while (!frames_.empty()) {
    OutFrame& frame = frames_.front();
    std::size_t h = std::min(written, frame.header_left);
    frame.header_left -= h;
    written -= h;
    std::size_t p = std::min(written, frame.payload_left);
    frame.payload += p;
    frame.payload_left -= p;
    written -= p;
    if (frame.header_left > 0 || frame.payload_left > 0) return;
    const RequestPtr& request = frame.owner.request;
    if (request && request->pending()) request->complete(request->bytes());
    frames_.pop_front();
  }
}

SendQueue::FlushResult SendQueue::flush(int fd) {
  FlushResult result;
  iovec iov[max_iov];
  while (!frames_.empty()) {
    std::size_t count = gather(iov, max_iov);
    std::size_t wanted = 0;
    for (std::size_t i = 0; i < count; ++i) wanted += iov[i].iov_len;
    msghdr message{};
    message.msg_iov = iov;
    message.msg_iovlen = count;
    ssize_t n = ::sendmsg(fd, &message, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) result.error = errno;
      return result;
    }
    result.progressed = result.progressed || n > 0;
    advance(static_cast<std::size_t>(n));
    // A short write means the socket buffer is full: the next call would
    // only answer EAGAIN.
    if (static_cast<std::size_t>(n) < wanted) return result;
  }
  return result;
}

std::size_t SendQueue::withdraw(const Request& request) {
  std::size_t dropped = 0;
  for (auto it = frames_.begin(); it != frames_.end();) {
    OutFrame& frame = *it;
    if (frame.owner.request.get() != &request) {
      ++it;
      continue;
    }
    const std::size_t credit = frame.owner.credit;
    frame.owner = {};
    if (frame.started()) {
      frame.owned.assign(frame.payload, frame.payload + frame.payload_left);
      frame.payload = frame.owned.data();
      frame.owner.credit = credit;  // still delivered
    } else if (frame.header.type == FrameType::data) {
      frame.header.flags |= flag_withdrawn;
      frame.header.length = 0;
      frame.payload = nullptr;
      frame.payload_left = 0;
      dropped += credit;
    } else {
      dropped += credit;
      it = frames_.erase(it);
      continue;
    }
    ++it;
  }
  return dropped;
}

std::vector<RequestPtr> SendQueue::take_requests() {
  std::vector<RequestPtr> requests;
  for (OutFrame& frame : frames_)
    if (frame.owner.request && frame.owner.request->pending()) requests.push_back(std::move(frame.owner.request));
  frames_.clear();
  return requests;
}

}  // namespace rcoll::transport::tcp
