// Scatter + ring allgather bcast: the root's buffer is cut into n chunks,
// chunk k (k = rank - root mod n) is scattered down a binomial tree to its
// rank, then a ring allgather completes every rank's copy. About
// (lg n + n - 1) alpha + 2 S (n - 1) / n beta: bandwidth-optimal for large
// messages on many ranks.
#include <algorithm>

#include "collectives/algorithms.hpp"
#include "collectives/requests.hpp"
#include "collectives/ring_allgather.hpp"
#include "collectives/schedule.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

constexpr std::uint32_t scatter_step = 0;
constexpr std::uint32_t allgather_first_step = 1;

// The bytes of chunks [first, first + ranks) (relative numbering), which are contiguous.
Range subtree_bytes(const Ring& ring, int first, int ranks) {
  const Range lo = ring.chunk(first);
  const Range hi = ring.chunk(first + ranks - 1);
  return {lo.offset, hi.end() - lo.offset};
}

// Binomial scatter: each rank receives the chunks of its whole subtree from
// its parent, then hands each child the chunks of that child's subtree.
void scatter(const Context& ctx, const Ring& ring, int root) {
  const int n = ctx.size();
  const int relative = wrap(ctx.rank() - root, n);
  TreeLinks links = binomial_tree(ctx.rank(), n, root);
  if (links.parent >= 0) {
    const Range mine = subtree_bytes(ring, relative, binomial_subtree_size(relative, n));
    if (mine.count > 0) {
      auto request = ctx.transport.irecv(links.parent, ctx.tag(scatter_step), ring.buf + mine.offset, mine.count);
      RequestList receive(ctx);
      receive.add(std::move(request));
      receive.wait_all(step_label(ctx, "bcast scatter_allgather scatter from rank {}", links.parent));
    }
  }
  RequestList sends(ctx);
  std::reverse(links.children.begin(), links.children.end());  // the largest subtree first
  for (int child : links.children) {
    const int child_relative = wrap(child - root, n);
    const Range part = subtree_bytes(ring, child_relative, binomial_subtree_size(child_relative, n));
    if (part.count > 0) sends.send(child, scatter_step, ring.buf + part.offset, part.count);
  }
  // The allgather receives into the chunks these sends read from.
  sends.wait_all(step_label(ctx, "bcast scatter_allgather scatter sends"));
}

}  // namespace

void bcast_scatter_allgather(const Context& ctx, void* buf, std::size_t bytes, int root) {
  const int n = ctx.size();
  if (n == 1 || bytes == 0) return;
  const int rank = ctx.rank();
  const std::size_t largest_chunk = ring_chunk(bytes, n, 0).count;
  const Ring ring{static_cast<std::byte*>(buf), bytes, 1, std::min(ctx.segment_bytes, largest_chunk),
                  n, wrap(rank - 1, n), wrap(rank + 1, n), nullptr};
  scatter(ctx, ring, root);
  ring_allgather(ctx, ring, wrap(rank - root, n), allgather_first_step, "bcast scatter_allgather allgather");
}

}  // namespace rcoll::collectives
