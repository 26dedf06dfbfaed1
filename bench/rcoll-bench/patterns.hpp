// The integers --check puts into the buffers: every input depends on the
// rank and the index, and is chosen so that what every rank must receive
// (a reduction over all ranks included) is exact in every dtype. Inputs
// repeat with a short period, so filling and checking are O(count) and the
// expected values are computed once per call shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <rcoll/rcoll.hpp>

namespace rcoll::bench {

// 7 * 11: long enough that neighbouring elements differ, short enough
// that the expected values are cheap to compute.
inline constexpr std::size_t kPeriod = 77;

// One period of values, as integers (element j holds period[j % size]).
using Period = std::vector<std::int64_t>;

// The value rank `rank` of `size` contributes at pattern position `j` for
// the reductions (allreduce, reduce, reduce_scatter) with `op`; bounded so
// that the reduction over all ranks is exact in `type`.
std::int64_t allreduce_input(ReduceOp op, DataType type, int rank, int size, std::size_t j);
// The root's bcast data at pattern position `j` (1..97, exact in every dtype).
std::int64_t bcast_input(int root, std::size_t j);
// Element `j` of the block rank `owner` sends towards rank `dest` in the
// data movers (allgather, alltoall, gather, scatter); dest -1 for a block
// every rank receives (allgather). 1..127: exact in every dtype, never the
// zero sentinel, different for neighbouring j and for neighbouring owners.
std::int64_t block_input(int owner, int dest, std::size_t j);

// The same, over one period.
Period reduction_input(ReduceOp op, DataType type, int rank, int size);
// op over all `size` ranks' reduction_input: what a reduction must produce.
Period reduction_result(ReduceOp op, DataType type, int size);
Period bcast_period(int root);
Period block_period(int owner, int dest);

}  // namespace rcoll::bench
