// Ring allreduce: reduce-scatter, then allgather, n - 1 steps each. Chunk k
// of the vector travels the ring starting at rank k, each rank adding its
// own part, and is complete at rank k - 1 (mod n); the allgather then copies
// that single final value to everyone, so all ranks agree bitwise.
//
// Pipelining: every chunk moves in segments. A rank forwards a segment in
// the next step as soon as it has reduced it, and up to ctx.depth
// segment receives are posted ahead into scratch slots, so the reduction
// of one segment overlaps the transfer of the following ones.
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

// Leaves the fully reduced chunk rank + 1 in ring.buf. Its segments go out
// at once as allgather step 0 (tag step size - 1) through `gather_sends`.
// Step s receives chunk rank - s - 1 from the left into scratch slot (item
// index mod depth); this rank's own chunk goes out (step 0) as the left's
// arrives, ctx.depth segments ahead.
void reduce_scatter(const Context& ctx, const Ring& ring, const std::byte* input, DataType type, ReduceOp op,
                    RequestList& gather_sends) {
  const int rank = ctx.rank();
  Scratch scratch(ctx.depth * ring.segment * ring.element_size);
  RequestList sends(ctx);
  ChunkSends own(ring, input, rank, 0, sends);
  own.post_until(ctx.depth);
  RingReceives items(ring, rank - 1, 0, scratch.get(), ctx.depth);
  RecvWindow window(ctx, items.count(), items, ctx.depth);
  std::size_t index = 0;
  for (int s = 0; s + 1 < ring.size; ++s) {
    const Range chunk = ring.chunk(rank - s - 1);
    const std::size_t segments = segment_count(chunk.count, ring.segment);
    const auto label = step_label(ctx, "allreduce ring reduce-scatter step {}/{}", s + 1, ring.size - 1);
    RequestList& next = s + 2 < ring.size ? sends : gather_sends;
    for (std::size_t j = 0; j < segments; ++j, ++index) {
      if (s == 0) own.post_until(j + ctx.depth + 1);
      const RecvItem item = window.wait(index, label);
      const std::size_t first = chunk.offset + segment_range(chunk.count, ring.segment, j).offset;
      const std::size_t n = item.bytes / ring.element_size;
      reduce(ring.at(first), input + first * ring.element_size, item.buf, n, type, op);
      window.release();
      next.send(ring.right, static_cast<std::uint32_t>(s + 1), ring.at(first), item.bytes);
    }
    if (s == 0) own.post_all();
  }
  // The input buffer these sends read from must outlive them.
  sends.wait_all(step_label(ctx, "allreduce ring reduce-scatter sends"));
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
  Ring ring{static_cast<std::byte*>(recv), count, element_size, segment, n, wrap(rank - 1, n), wrap(rank + 1, n)};
  const auto gather_step = static_cast<std::uint32_t>(n - 1);
  RingReceives gather_items(ring, rank, gather_step);
  RecvWindow gather_receives(ctx, gather_items.count(), gather_items, ctx.depth);
  RequestList gather_sends(ctx);
  reduce_scatter(ctx, ring, static_cast<const std::byte*>(send), type, op, gather_sends);
  forward_allgather(ctx, ring, rank + 1, "allreduce ring allgather", gather_sends, gather_receives);
}

}  // namespace rcoll::collectives
