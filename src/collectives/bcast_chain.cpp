// Pipelined chain bcast: root -> root+1 -> ... -> root-1 in segments; each
// rank forwards a segment as soon as it has it. About (n - 2 + k) segment
// times for k segments: bandwidth-optimal for large messages, whatever n.
#include "collectives/algorithms.hpp"
#include "collectives/schedule.hpp"

namespace rcoll::collectives {

void bcast_chain(const Context& ctx, void* buf, std::size_t bytes, int root) {
  if (ctx.size() == 1 || bytes == 0) return;
  const TreeLinks links = chain_tree(ctx.rank(), ctx.size(), root);
  forward_segments(ctx, links, static_cast<std::byte*>(buf), bytes, ctx.segment_bytes, 0, "bcast chain");
}

}  // namespace rcoll::collectives
