#include "transport/tcp/rx_stream.hpp"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace rcoll::transport::tcp {
namespace {

// Big enough to take many small frames in one read; small enough that the
// part of a large payload that lands here (and is copied) stays negligible.
constexpr std::size_t staging_bytes = 64 * 1024;
// Reads per pump, so that one busy connection cannot starve the others.
constexpr int max_reads_per_pump = 16;

}  // namespace

std::string_view to_string(RxStream::State state) noexcept {
  return state == RxStream::State::reading_header ? "reading_header" : "reading_payload";
}

void RxStream::start_frame(FrameSink& sink) {
  FrameHeader header;
  std::memcpy(&header, staging_.data() + begin_, sizeof(header));
  begin_ += sizeof(header);
  if (header.magic != frame_magic || header.version != wire_version)
    throw ProtocolError("bad frame header (magic " + std::to_string(header.magic) + ", version " +
                        std::to_string(header.version) + ")");
  std::byte* dest = sink.on_frame(header);
  if (!carries_payload(header.type)) return;
  dest_ = dest;
  payload_left_ = header.length;
  state_ = State::reading_payload;
  if (payload_left_ == 0) finish_payload(sink);
}

void RxStream::finish_payload(FrameSink& sink) {
  state_ = State::reading_header;
  dest_ = nullptr;
  sink.on_payload_done();
}

void RxStream::consume_staged(FrameSink& sink) {
  while (begin_ < end_) {
    std::size_t staged = end_ - begin_;
    if (state_ == State::reading_payload) {
      std::size_t n = std::min(staged, payload_left_);
      if (dest_ != nullptr) {
        std::memcpy(dest_, staging_.data() + begin_, n);
        dest_ += n;
      }
      begin_ += n;
      payload_left_ -= n;
      if (payload_left_ == 0) finish_payload(sink);
    } else if (staged >= sizeof(FrameHeader)) {
      start_frame(sink);
    } else {
      break;
    }
  }
  compact();
}

void RxStream::compact() noexcept {
  if (begin_ == end_) {
    begin_ = end_ = 0;
  } else if (begin_ > 0) {
    std::memmove(staging_.data(), staging_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
}

RxStream::PumpResult RxStream::pump(int fd, FrameSink& sink) {
  if (staging_.empty()) staging_ = topology::PlacedBuffer(staging_bytes);
  PumpResult result;
  for (int reads = 0; reads < max_reads_per_pump; ++reads) {
    consume_staged(sink);
    iovec iov[2];
    int count = 0;
    bool direct = state_ == State::reading_payload && dest_ != nullptr;
    if (direct) iov[count++] = {dest_, payload_left_};
    iov[count++] = {staging_.data() + end_, staging_.size() - end_};
    std::size_t wanted = (direct ? payload_left_ : 0) + (staging_.size() - end_);
    ssize_t n = ::readv(fd, iov, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) result.error = errno;
      return result;
    }
    if (n == 0) {
      result.closed = true;
      return result;
    }
    result.progressed = true;
    std::size_t got = static_cast<std::size_t>(n);
    std::size_t direct_bytes = direct ? std::min(got, payload_left_) : 0;
    end_ += got - direct_bytes;
    if (direct_bytes > 0) {
      dest_ += direct_bytes;
      payload_left_ -= direct_bytes;
      if (payload_left_ == 0) finish_payload(sink);
    }
    // A short read drained the socket; epoll reports it again when more comes.
    if (got < wanted) break;
  }
  consume_staged(sink);
  return result;
}

}  // namespace rcoll::transport::tcp
