// Ring allgather, for any blocks (the only allgatherv algorithm): n - 1
// steps; step t sends block rank - t to the right and receives block
// rank - t - 1 from the left straight into place, forwarding each piece as
// soon as it has arrived (ring_allgather.hpp). Pieces are at most
// ctx.segment_bytes, with ctx.depth receives posted ahead and the sends
// paced (PacedSends). (n - 1)(alpha + S/n beta): bandwidth-optimal, and the
// only rank-to-neighbour scheme, but n - 1 steps in a row.
#include "collectives/algorithms.hpp"
#include "collectives/block_moves.hpp"
#include "collectives/ring_allgather.hpp"

namespace rcoll::collectives {

void allgather_ring(const Context& ctx, const void* send, void* recv, const Blocks& blocks) {
  const int n = ctx.size();
  const int rank = ctx.rank();
  auto* buf = static_cast<std::byte*>(recv);
  copy_block(buf + blocks.offset(rank), send, blocks.bytes(rank));
  const std::size_t largest = largest_block(blocks, n) / blocks.unit;
  if (n == 1 || largest == 0) return;
  const std::size_t segment = run_segment(largest, blocks.unit, ctx.segment_bytes);
  const Ring ring{buf, 0, blocks.unit, segment, n, wrap(rank - 1, n), wrap(rank + 1, n), &blocks};
  ring_allgather(ctx, ring, rank, 0, "allgather ring");
}

}  // namespace rcoll::collectives
