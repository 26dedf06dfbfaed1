// What the block collectives' suites (allgather, gather, scatter) share:
// per-rank block patterns, layouts (uniform, or v with some empty blocks
// and gapped displacements in reverse rank order) and guarded buffers:
// every buffer a schedule writes has kGuard bytes of kGuardByte before and
// after it, and the gaps between v blocks hold them too; a test compares
// whole buffers, guards and gaps included, with what they must hold.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "collectives/collectives.hpp"

namespace rcoll::test {

inline constexpr std::size_t kGuard = 64;
inline constexpr std::byte kGuardByte{0xee};

// Byte j of rank r's block.
inline std::byte block_byte(int rank, std::size_t j) {
  return static_cast<std::byte>((static_cast<std::size_t>(rank) * 37 + j * 11 + 5) & 0xff);
}

// A Blocks with the arrays it points into; blocks() refers to this object,
// which must not move while a call uses it.
struct Layout {
  std::size_t each = 0;
  std::size_t unit = 1;
  std::vector<std::size_t> counts;  // empty: uniform
  std::vector<std::size_t> displs;

  collectives::Blocks blocks() const {
    if (counts.empty()) return {each, nullptr, nullptr, unit};
    return {0, counts.data(), displs.data(), unit};
  }
  bool v() const { return !counts.empty(); }
  // Bytes from the buffer's start to the end of the last block (and a trailing gap for v).
  std::size_t extent(int size) const {
    const collectives::Blocks b = blocks();
    std::size_t end = 0;
    for (int r = 0; r < size; ++r) end = std::max(end, b.offset(r) + b.bytes(r));
    return v() ? end + 3 * unit : end;
  }
};

inline Layout uniform_layout(std::size_t each, std::size_t unit = 1) { return {each, unit, {}, {}}; }

// Counts 0, 5, 1001, 0, 7, 1, 300, 64 (by rank mod 8) elements; rank
// size - 1 first in the buffer, rank 0 last, 3 elements of gap between
// blocks and before the first.
inline Layout v_layout(int size, std::size_t unit = 1) {
  static constexpr std::size_t pattern[] = {0, 5, 1001, 0, 7, 1, 300, 64};
  Layout layout{0, unit, std::vector<std::size_t>(size), std::vector<std::size_t>(size)};
  std::size_t at = 3;
  for (int r = size - 1; r >= 0; --r) {
    layout.counts[r] = pattern[r % 8];
    layout.displs[r] = at;
    at += layout.counts[r] + 3;
  }
  return layout;
}

// What a non-root rank of a gatherv / scatterv is given (collectives.hpp):
// uniform blocks of its own count.
inline Layout own_layout(const Layout& layout, int rank) {
  return uniform_layout(layout.blocks().bytes(rank) / layout.unit, layout.unit);
}

// A buffer of `bytes` between guards.
struct Guarded {
  std::vector<std::byte> all;
  explicit Guarded(std::size_t bytes) : all(bytes + 2 * kGuard, kGuardByte) {}
  std::byte* data() { return all.data() + kGuard; }
};

// Rank r's block (blocks.bytes(r) bytes of its pattern) written at blocks.offset(at_rank) of `buf`.
inline void put_block(std::byte* buf, const collectives::Blocks& blocks, int r, std::size_t offset) {
  for (std::size_t j = 0; j < blocks.bytes(r); ++j) buf[offset + j] = block_byte(r, j);
}

// The guarded buffer of `extent` bytes holding every rank's block at its place.
inline std::vector<std::byte> all_blocks(const Layout& layout, int size) {
  Guarded g(layout.extent(size));
  const collectives::Blocks b = layout.blocks();
  for (int r = 0; r < size; ++r) put_block(g.data(), b, r, b.offset(r));
  return g.all;
}

}  // namespace rcoll::test
