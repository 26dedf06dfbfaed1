// Small pieces shared by the allgather, gather and scatter schedules: the
// local copy of a block, the largest block, and one message each way that
// is waited for at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "collectives/collectives.hpp"
#include "common/lazy_text.hpp"

namespace rcoll::collectives {

// Copies `bytes` from `from` to `to`, unless they are the same place (the
// in-place case) or there is nothing to copy.
inline void copy_block(void* to, const void* from, std::size_t bytes) {
  if (bytes > 0 && to != from) std::memcpy(to, from, bytes);
}

// The largest of the blocks of ranks 0 .. size - 1, in bytes.
std::size_t largest_block(const Blocks& blocks, int size);

// One message to / from `peer` with tag step `step`, waited for before
// returning (ctx.deadline); nothing is sent or received for 0 bytes, so
// both ends must agree on the size.
void send_message(const Context& ctx, int peer, std::uint32_t step, const void* buf, std::size_t bytes,
                  const LazyText& label);
void receive_message(const Context& ctx, int peer, std::uint32_t step, void* buf, std::size_t bytes,
                     const LazyText& label);

}  // namespace rcoll::collectives
