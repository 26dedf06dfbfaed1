// The frames waiting to go out on one connection, in order.
//
// Payloads are referenced, not copied (zero-copy send): the caller's buffer
// must stay valid until the frame's request completes or is withdrawn. A
// frame's request completes when the frame's last byte has been written.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <deque>
#include <vector>

#include "transport/request.hpp"
#include "transport/tcp/wire.hpp"

namespace rcoll::transport::tcp {

// The send whose buffer a queued frame's payload is.
struct FrameOwner {
  RequestPtr request;      // may be null (frames without a user payload)
  std::size_t credit = 0;  // credit the payload holds (credit_window.hpp)
};

class SendQueue {
 public:
  struct FlushResult {
    bool progressed = false;  // some bytes were written
    int error = 0;            // errno of a failed write (EAGAIN is not a failure)
  };

  // Queues `header` followed by `bytes` bytes at `payload`.
  void push(const FrameHeader& header, const void* payload, std::size_t bytes, FrameOwner owner = {});
  bool empty() const noexcept { return frames_.empty(); }
  // The header of the frame the next write starts in; null when empty.
  const FrameHeader* front() const noexcept { return frames_.empty() ? nullptr : &frames_.front().header; }

  // Writes as much as the socket takes without blocking (one sendmsg per
  // batch of frames, MSG_NOSIGNAL so a closed peer gives EPIPE, not SIGPIPE).
  FlushResult flush(int fd);

  // Stops referencing `request`'s buffer. A frame not yet started is dropped
  // (an EAGER frame) or reduced to a withdrawn DATA header (the receiver is
  // waiting for it); a frame partly written keeps the stream consistent by
  // sending the rest from a private copy made now. Returns the credit of the
  // payloads that will now never reach the receiver: the sender's again.
  std::size_t withdraw(const Request& request);

  // Removes every frame and returns the pending requests they carried.
  std::vector<RequestPtr> take_requests();

 private:
  struct OutFrame {
    FrameHeader header;
    std::size_t header_left = sizeof(FrameHeader);
    const std::byte* payload = nullptr;
    std::size_t payload_left = 0;
    FrameOwner owner;
    std::vector<std::byte> owned;  // the rest of a withdrawn payload
    bool started() const noexcept { return header_left < sizeof(FrameHeader); }
  };

  std::size_t gather(iovec* iov, std::size_t max_iov) const;
  void advance(std::size_t written);

  std::deque<OutFrame> frames_;
};

}  // namespace rcoll::transport::tcp
