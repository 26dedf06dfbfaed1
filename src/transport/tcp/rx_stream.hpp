// The receiving half of one connection: splits the byte stream into frame
// headers and payloads.
//
// State machine (names appear in trace logs):
//   reading_header  --full header--> reading_payload (EAGER/DATA with length > 0)
//   reading_payload --last byte----> reading_header
// The sink says where each payload goes. While a payload is being read into
// a destination, the socket is read with readv straight into it (zero copy),
// and whatever follows the payload lands in a small staging buffer in the
// same call; bytes that arrive in the staging buffer together with their
// header (small messages) are copied out of it, which is cheaper than a
// second system call.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "topology/placed_buffer.hpp"
#include "transport/tcp/wire.hpp"

namespace rcoll::transport::tcp {

// A peer broke the wire protocol; the connection cannot be trusted after it.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // A header arrived. For EAGER/DATA returns where its `length` payload
  // bytes go (nullptr: read and discard them); ignored for other types.
  // May throw ProtocolError.
  virtual std::byte* on_frame(const FrameHeader& header) = 0;
  // The payload of the frame last announced is complete.
  virtual void on_payload_done() = 0;
};

class RxStream {
 public:
  enum class State : std::uint8_t { reading_header, reading_payload };

  struct PumpResult {
    bool progressed = false;  // bytes were read
    bool closed = false;      // the peer closed the connection (EOF)
    int error = 0;            // errno of a failed read
  };

  // Reads what the socket has (a bounded number of reads) and reports every
  // complete header and payload to `sink`. Throws ProtocolError.
  PumpResult pump(int fd, FrameSink& sink);
  // The rest of the current payload is read into nowhere (its receive was cancelled).
  void discard_rest() noexcept { dest_ = nullptr; }
  State state() const noexcept { return state_; }

 private:
  void consume_staged(FrameSink& sink);
  void start_frame(FrameSink& sink);
  void finish_payload(FrameSink& sink);
  void compact() noexcept;

  topology::PlacedBuffer staging_;  // on the process's memory node; allocated on first pump
  std::size_t begin_ = 0;  // staged, unconsumed bytes are [begin_, end_)
  std::size_t end_ = 0;
  State state_ = State::reading_header;
  std::byte* dest_ = nullptr;  // payload destination; nullptr discards
  std::size_t payload_left_ = 0;
};

std::string_view to_string(RxStream::State state) noexcept;

}  // namespace rcoll::transport::tcp
