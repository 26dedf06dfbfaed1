// A receive waiting for its message, and the contract's rules for serving it
// (transport.hpp): a message of at most the receive's capacity lands in its
// buffer and completes it; a longer one fails it with an IoError and is
// consumed all the same (a TruncationError, truncation.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

#include "transport/request.hpp"

namespace rcoll::transport {

struct PostedReceive {
  RequestPtr request;
  std::byte* buf = nullptr;
  std::size_t capacity = 0;

  bool fits(std::uint64_t length) const noexcept { return length <= capacity; }
};

// The parts of a receive's IoError: `rank` receives from `peer` over
// `transport` ("tcp", "rdma", "inproc"); the step is "<transport> recv".
struct ReceiveSide {
  std::string_view transport;
  int rank;
  int peer;
};

// The error (a TruncationError, truncation.hpp) of a message of `length`
// bytes for a receive of `capacity`.
std::exception_ptr truncation_error(const ReceiveSide& side, std::uint64_t length, std::size_t capacity);

// Copies a whole message of `length` bytes into the pending `receive` and
// completes it, or fails it when the message does not fit.
void deliver(const PostedReceive& receive, const std::byte* data, std::size_t length, const ReceiveSide& side);

}  // namespace rcoll::transport
