// The soak test's data: every rank's allreduce input, and the serial
// reference result, both computed from a seed alone, so that each rank can
// check its result without trusting any other rank.
//
// Inputs are chosen so that the exact result does not depend on the order
// in which an algorithm combines ranks; the reference is then one value,
// compared bitwise:
//   integers, every op   any bit pattern (sums and products wrap, as the
//                        library documents: modular arithmetic is exact)
//   floats, sum          k * 2^s, |k| <= amplitude(world), s shared by all
//                        ranks for an element: every partial sum is exact
//   floats, prod         +-2^e with small e: every partial product is exact
//   floats, min/max      any finite bit pattern except -0 (min(+0, -0) is
//                        order-dependent; NaN is not ordered)
#pragma once

#include <cstddef>
#include <cstdint>

#include <rcoll/types.hpp>

namespace rcoll::soak {

struct ReduceSpec {
  DataType type = DataType::float32;
  ReduceOp op = ReduceOp::sum;
  int world = 1;
  std::uint64_t seed = 0;
};

// Writes `count` elements of `rank`'s input to `out`.
void fill_input(const ReduceSpec& spec, int rank, std::byte* out, std::size_t count);

// Writes the reduction of every rank's input (ranks 0..world-1) to `out`.
void fill_reference(const ReduceSpec& spec, std::byte* out, std::size_t count);

// `bytes` pseudo-random bytes from `seed` (bcast and send/recv payloads).
void fill_bytes(std::uint64_t seed, std::byte* out, std::size_t bytes);

}  // namespace rcoll::soak
