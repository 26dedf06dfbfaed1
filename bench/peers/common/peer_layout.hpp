// The buffers of one peer operation, by nccl-tests' size convention (the
// same as rcoll-bench's): `bytes` is
//   allreduce, bcast, reduce   the vector (every rank's send and receive);
//   allgather                  a rank's receive buffer (its block: bytes / n);
//   gather                     the root's receive buffer (a rank's block: bytes / n);
//   reduce_scatter, alltoall   a rank's send buffer (block: bytes / n);
//   scatter                    the root's send buffer (a rank's block: bytes / n),
// rounded down to whole float32 elements per rank; the size then reported
// is the rounded one (block * n elements for the blocked ops), and a size
// whose block is empty is skipped. busbw = algbw * bus_factor (nccl-tests):
// allreduce 2(n-1)/n; allgather, reduce_scatter, alltoall (n-1)/n; bcast,
// reduce, gather, scatter 1.
#pragma once

#include <cstddef>

#include "common/peer_options.hpp"

namespace rcoll::peers {

struct PeerLayout {
  // Elements per rank's block (the call's count argument, the "count" the
  // results report); the whole vector for allreduce, bcast, reduce.
  std::size_t block = 0;
  std::size_t send_count = 0;  // elements of a rank's own send buffer; 0: none (bcast, in-place allreduce)
  std::size_t recv_count = 0;  // elements of a rank's receive buffer (gather: also allocated off the root)
  std::size_t count = 0;       // elements the reported size stands for
  std::size_t bytes = 0;       // count * sizeof(float): the size reported
};

// Where block == 0 the size is skipped.
PeerLayout peer_layout(PeerOp op, std::size_t bytes, int ranks, bool inplace);

// The ops that split the size into one block per rank.
bool is_blocked(PeerOp op) noexcept;
// The ops whose result is defined on the root only (reduce, gather).
bool result_on_root_only(PeerOp op) noexcept;
// The ops that sum (allreduce, reduce, reduce_scatter).
bool is_reduction(PeerOp op) noexcept;
// The ops that take --root (bcast, reduce, gather, scatter).
bool takes_root(PeerOp op) noexcept;

double bus_factor(PeerOp op, int ranks) noexcept;

}  // namespace rcoll::peers
