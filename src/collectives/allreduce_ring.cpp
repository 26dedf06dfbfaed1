// Ring allreduce: reduce-scatter, then allgather, n - 1 steps each. Chunk k
// of the vector travels the ring starting at rank k, each rank adding its
// own part, and is complete at rank k - 1 (mod n); the allgather then copies
// that single final value to everyone, so all ranks agree bitwise.
//
// Pipelining: every chunk moves in segments. A rank forwards a segment in
// the next step as soon as it has reduced it, and up to ctx.depth
// segment receives are posted ahead into scratch slots, so the reduction
// of one segment overlaps the transfer of the following ones. All of a
// rank's sends to the right, both phases, go through one PacedSends: at
// most ctx.depth in flight, the rest queued as runs, so a slow right
// neighbour costs a few entries per step rather than one per segment.
//
// The allgather's first receives are posted before the reduce-scatter
// starts. A neighbour that finishes its reduce-scatter first starts sending
// allgather segments at once; posted early, a rendezvous one is cleared as
// soon as it is asked for instead of when this rank reaches the allgather,
// and an eager one lands in place instead of being parked and copied.
// (docs/results/PERFORMANCE_LOG.md, "Placement, early allgather receives,
// and three ideas that did not pay", has the measurements.) It is safe
// although those receives land in chunks the reduce-scatter writes and
// sends from: a chunk's final value reaches this rank only after every
// partial sum of it, this rank's included, has reached the rank that
// completes it, so this rank's last send from that chunk has left.
#include "collectives/algorithms.hpp"
#include "collectives/ring_allgather.hpp"
#include "collectives/ring_reduce_scatter.hpp"

namespace rcoll::collectives {

void allreduce_ring(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type,
                    ReduceOp op) {
  if (allreduce_trivial(ctx, send, recv, count, type)) return;
  const int n = ctx.size();
  const int rank = ctx.rank();
  const std::size_t element_size = dtype_size(type);
  const std::size_t largest_chunk = ring_chunk(count, n, 0).count;
  const std::size_t segment = run_segment(largest_chunk, element_size, ctx.segment_bytes);
  Ring ring{static_cast<std::byte*>(recv), count, element_size, segment, n, wrap(rank - 1, n), wrap(rank + 1, n),
            nullptr};
  PacedSends sends(ctx, ctx.depth);  // every send to the right, both phases, in order
  RingReceives gather_items(ring, rank, static_cast<std::uint32_t>(n - 1));
  RecvWindow gather_receives(ctx, gather_items.count(), gather_items, ctx.depth, &sends);
  // Leaves the complete chunk rank + 1 in place, queued as allgather step 0 (tag step n - 1).
  const RingReduceScatter rs{static_cast<const std::byte*>(send), rank, ring.at(ring.chunk(rank + 1).offset), true,
                             "allreduce ring reduce-scatter"};
  ring_reduce_scatter(ctx, ring, rs, type, op, sends);
  forward_allgather(ctx, ring, rank + 1, "allreduce ring allgather", sends, gather_receives);
}

}  // namespace rcoll::collectives
