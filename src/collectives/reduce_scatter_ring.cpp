// Ring reduce-scatter over any Blocks (the only reduce_scatter_v
// algorithm): the first phase of the ring allreduce (ring_reduce_scatter.hpp)
// with the chunks shifted by one rank, so that rank r completes block r.
// n - 1 steps, each pipelined in segments; every rank sends and receives
// every block but its own once: (n - 1) alpha + (n - 1)/n S (beta + gamma).
//
// The caller's send buffer is never written out of place: the partial sums
// this rank forwards go to scratch slots, each reused once its send has
// completed (recv holds one block only), and the complete block is reduced
// straight into recv. The slots hold a chunk and depth segments more: in a
// ring a rank runs up to a chunk ahead of its right neighbour, whose
// receives take this rank's own chunk first (ring_reduce_scatter.cpp).
// About S/n of scratch, not S.
//
// In place the buffer is the caller's result buffer, so the partial sums
// overwrite it as in the ring allreduce, and the complete block is moved
// to the start of the buffer once every send reading the buffer is done.

#include "collectives/algorithms.hpp"
#include "collectives/block_moves.hpp"
#include "collectives/reduce_scatter_blocks.hpp"
#include "collectives/ring_reduce_scatter.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
void reduce_scatter_ring(const Context& ctx, const void* send, void* recv, const Blocks& blocks, DataType type,
                         ReduceOp op) {
  const int n = ctx.size();
  const int rank = ctx.rank();
  const std::size_t total = total_bytes(blocks, n);
  if (n == 1 || total == 0) return move_own_block(send, recv, blocks, rank);
  const bool in_place = send == recv;
  const std::size_t element_size = dtype_size(type);
  const std::size_t segment = run_segment(largest_block(blocks, n) / element_size, element_size, ctx.segment_bytes);
  auto* out = static_cast<std::byte*>(recv);
  const Ring ring{out, total / element_size, element_size, segment, n, wrap(rank - 1, n), wrap(rank + 1, n), &blocks};
  RingReduceScatter rs{static_cast<const std::byte*>(send), rank - 1, in_place ? ring.at(ring.chunk(rank).offset) : out,
                       false, "reduce_scatter ring"};
  // Out of place the partial sums go to recycled slots, never to ring.buf
  // (recv: one block); they exist only where a block passes through a rank: n > 2.
  const std::size_t slots = !in_place && n > 2 ? ring_reduce_scatter_slots(ctx, ring) : 0;
  Scratch partials(slots * segment * element_size);
  rs.slots = partials.get();
  rs.slot_count = slots;
  PacedSends sends(ctx, ctx.depth);
  ring_reduce_scatter(ctx, ring, rs, type, op, sends);
  sends.wait_all(step_label(ctx, "reduce_scatter ring sends"));
  if (in_place) move_own_block(recv, recv, blocks, rank);
}

}  // namespace rcoll::collectives
