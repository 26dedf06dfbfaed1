// Buffer contents as runs of periodic integers: what --check writes into a
// buffer and what it expects there afterwards. Elements outside every
// piece are left alone and not checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <rcoll/rcoll.hpp>

#include "patterns.hpp"

namespace rcoll::bench {

// `count` elements from element `offset` on; element i of the piece holds
// period[(phase + i) % period.size()]. period is never empty.
struct Piece {
  std::size_t offset = 0;
  std::size_t count = 0;
  Period period;
  std::size_t phase = 0;
};
using Pieces = std::vector<Piece>;

// The piece's values stored as `type` at their offsets in `buf`.
void write_pieces(DataType type, const Pieces& pieces, void* buf);
// Elements of `buf` that differ from what the pieces say (bitwise for the
// 16-bit floats).
std::size_t count_mismatches(DataType type, const Pieces& pieces, const void* buf);
// Elements the pieces reach: the largest offset + count (0 for none).
std::size_t extent(const Pieces& pieces);

// For tests: the pieces as integers in a buffer of `size` elements that
// holds `fill` elsewhere (size >= extent(pieces)).
std::vector<std::int64_t> to_integers(const Pieces& pieces, std::size_t size, std::int64_t fill);

}  // namespace rcoll::bench
