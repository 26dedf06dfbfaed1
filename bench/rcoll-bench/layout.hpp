// How a swept size maps onto one call, after nccl-tests: the size is the
// vector of allreduce, bcast and reduce; a rank's receive buffer for
// allgather (the root's for gather); a rank's send buffer for
// reduce_scatter and alltoall (the root's for scatter). Where the buffer
// is split into one block per rank, a block is size / ranks rounded down
// to whole elements.
#pragma once

#include <cstddef>

#include "options.hpp"

namespace rcoll::bench {

struct SizeLayout {
  // The call's count argument: the vector's elements, or one rank's block
  // (nccl-tests' "count" column). 0: the size is too small and skipped.
  std::size_t block = 0;
  // The size the row stands for, rounded down to whole blocks; algbw is
  // bytes / time.
  std::size_t bytes = 0;
};

// Whether `op` splits its buffer into one block per rank.
bool splits_into_blocks(BenchOp op) noexcept;

// `bytes` of elements of `element` bytes on `ranks` ranks. barrier: {0, 0}.
SizeLayout layout_size(BenchOp op, std::size_t bytes, std::size_t element, int ranks) noexcept;

// busbw / algbw (nccl-tests): allreduce 2(n-1)/n; allgather,
// reduce_scatter, alltoall (n-1)/n; bcast, reduce, gather, scatter 1;
// barrier 0.
double bus_factor(BenchOp op, int ranks) noexcept;

}  // namespace rcoll::bench
