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
#include <algorithm>
#include <memory>

#include "collectives/algorithms.hpp"
#include "collectives/reduce.hpp"
#include "collectives/ring_allgather.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

// Leaves the fully reduced chunk rank + 1 in ring.buf; its segments are
// queued at once as allgather step 0 (tag step size - 1). Step s receives
// chunk rank - s - 1 from the left into scratch slot (item index mod
// depth), adds this rank's part in ring.buf and queues it for the right
// as step s + 1. This rank's own chunk (step 0, from `input`) is queued
// first. `sends` keeps depth of them in flight, the oldest first, and
// reads `input` until the call's last wait.
void reduce_scatter(const Context& ctx, const Ring& ring, const std::byte* input, DataType type, ReduceOp op,
                    PacedSends& sends) {
  const int rank = ctx.rank();
  Scratch scratch(ctx.depth * ring.segment * ring.element_size);
  send_chunk(ring, input, rank, 0, sends);
  RingReceives items(ring, rank - 1, 0, scratch.get(), ctx.depth);
  RecvWindow window(ctx, items.count(), items, ctx.depth, &sends);
  std::size_t index = 0;
  for (int s = 0; s + 1 < ring.size; ++s) {
    const Range chunk = ring.chunk(rank - s - 1);
    const std::size_t segments = segment_count(chunk.count, ring.segment);
    const auto label = step_label(ctx, "allreduce ring reduce-scatter step {}/{}", s + 1, ring.size - 1);
    for (std::size_t j = 0; j < segments; ++j, ++index) {
      const RecvItem item = window.wait(index, label);
      const std::size_t first = chunk.offset + segment_range(chunk.count, ring.segment, j).offset;
      const std::size_t n = item.bytes / ring.element_size;
      reduce(ring.at(first), input + first * ring.element_size, item.buf, n, type, op);
      window.release();
      sends.send(ring.right, static_cast<std::uint32_t>(s + 1), ring.at(first), item.bytes);
    }
  }
}

}  // namespace

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
  reduce_scatter(ctx, ring, static_cast<const std::byte*>(send), type, op, sends);
  forward_allgather(ctx, ring, rank + 1, "allreduce ring allgather", sends, gather_receives);
}

}  // namespace rcoll::collectives
