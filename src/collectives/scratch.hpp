// The scratch memory of one collective call (receive slots of the pipelined
// reductions, the partner's vector in recursive doubling), on the process's
// memory node like every buffer the library owns (topology/placed_buffer.hpp).
//
// Collectives allocate scratch on every call; to keep that from costing a
// fresh mapping and its page faults each time, each thread keeps the two
// largest released scratch buffers (up to keep_limit bytes each) and the
// next call on that thread reuses the smallest that is large enough and
// on the current node. A thread with several non-blocking calls in flight
// may hold more than two at once: the others are mapped for their call and
// compete for the two places when released.
#pragma once

#include <cstddef>

#include "topology/placed_buffer.hpp"

namespace rcoll::collectives {

class Scratch {
 public:
  // Scratch larger than this is freed, not kept, when released.
  static constexpr std::size_t keep_limit = std::size_t{16} << 20;

  // At least `bytes` of uninitialised memory; none for 0 (get() == nullptr).
  explicit Scratch(std::size_t bytes);
  ~Scratch();  // back to this thread's cache
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  std::byte* get() const noexcept { return buffer_.get(); }
  std::size_t size() const noexcept { return buffer_.size(); }

 private:
  topology::PlacedBuffer buffer_;
};

}  // namespace rcoll::collectives
