// The error of a receive whose message was longer than its buffer. It is an
// IoError, as the transport contract says (transport.hpp), of a type of its
// own so that the communicator can tell one point-to-point message that did
// not fit (the caller's problem; the connection is fine and the message was
// discarded) from a failed peer or link. Its text names no tag: the tags
// the transport sees are the communicator's encoding (comm/tags.hpp), and
// the caller's step in front of it names the call, the user's tag or the
// collective's step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "rcoll/errors.hpp"

namespace rcoll::transport {

class TruncationError : public IoError {
 public:
  // `rank` received from `peer` a message of `length` bytes for a buffer of
  // `capacity`; `step` is the transport's ("tcp recv").
  TruncationError(int rank, int peer, std::string step, std::uint64_t length, std::size_t capacity)
      : IoError(rank, peer, std::move(step),
                "message of " + std::to_string(length) + " bytes exceeds receive buffer of " +
                    std::to_string(capacity) + " bytes"),
        length_(length), capacity_(capacity) {}

  std::uint64_t length() const noexcept { return length_; }
  std::size_t capacity() const noexcept { return capacity_; }
  // The same error with the caller's step in front ("<caller>: tcp recv")
  // and rank and peer as the caller numbers them (transport/wait.cpp).
  TruncationError with_step(const std::string& caller, int rank, int peer) const {
    return TruncationError(rank, peer, caller + ": " + step(), length_, capacity_);
  }

 private:
  std::uint64_t length_;
  std::size_t capacity_;
};

}  // namespace rcoll::transport
