// The block arithmetic the reduce_scatter schedules share. Their blocks lie
// consecutively in rank order from offset 0 (collectives.hpp), so any run
// of blocks is one run of bytes.
#pragma once

#include <cstddef>
#include <cstring>

#include "collectives/collectives.hpp"
#include "collectives/schedule.hpp"

namespace rcoll::collectives {

// Bytes of blocks first .. last - 1 (none when last <= first).
inline Range block_run(const Blocks& blocks, int first, int last) {
  if (last <= first) return {};
  return {blocks.offset(first), blocks.offset(last - 1) + blocks.bytes(last - 1) - blocks.offset(first)};
}

// Bytes of every rank's block.
inline std::size_t total_bytes(const Blocks& blocks, int size) { return block_run(blocks, 0, size).count; }

// This rank's block from `send` (laid out by `blocks`) to the start of recv;
// send may be recv (in place).
inline void move_own_block(const void* send, void* recv, const Blocks& blocks, int rank) {
  const std::size_t bytes = blocks.bytes(rank);
  const auto* from = static_cast<const std::byte*>(send) + blocks.offset(rank);
  if (bytes > 0 && from != recv) std::memmove(recv, from, bytes);
}

}  // namespace rcoll::collectives
