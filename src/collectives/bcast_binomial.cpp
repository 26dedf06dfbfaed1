// Binomial-tree bcast: ceil(log2 n) rounds, for small messages. In segments,
// so that for larger messages a rank forwards the first segment while later
// ones are still on their way to it.
#include <algorithm>

#include "collectives/algorithms.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

// Receives posted ahead of the consumer.
constexpr std::size_t window = 8;

}  // namespace

void forward_segments(const Context& ctx, const TreeLinks& links, std::byte* buf, std::size_t bytes,
                      std::size_t segment_bytes, std::uint32_t step, std::string_view name) {
  const bool root = links.parent < 0;
  // Pieces of the incoming edge and of each outgoing one (forward_pieces):
  // a root-to-leaf edge may carry double segments; below the root every
  // edge is cut alike, so a child gets exactly the pieces this rank receives.
  const ForwardPieces cut = forward_pieces(bytes, segment_bytes, ctx.transport.capabilities().eager_limit);
  const std::size_t incoming = root ? cut.segment : incoming_segment(links, cut);
  const std::size_t segments = segment_count(bytes, incoming);
  struct Edge {
    std::size_t segment;  // bytes per piece
    std::size_t pieces;
  };
  std::vector<Edge> outgoing;
  outgoing.reserve(links.children.size());
  std::size_t steps = segments;
  for (std::size_t i = 0; i < links.children.size(); ++i) {
    const std::size_t piece = outgoing_segment(links, i, cut);
    outgoing.push_back({piece, segment_count(bytes, piece)});
    steps = std::max(steps, outgoing.back().pieces);
  }
  std::vector<RecvItem> items;
  if (!root) {
    items.reserve(segments);
    for (std::size_t s = 0; s < segments; ++s) {
      const Range seg = segment_range(bytes, incoming, s);
      items.push_back({links.parent, step, buf + seg.offset, seg.count});
    }
  }
  RequestList sends(ctx);
  RecvWindow receives(ctx, std::move(items), window);
  for (std::size_t s = 0; s < steps; ++s) {
    if (!root && s < segments) {
      receives.wait(s, step_label(ctx, "{} from rank {} segment {}/{}", name, links.parent, s + 1, segments));
      receives.release();
    }
    for (std::size_t i = 0; i < links.children.size(); ++i) {
      if (s >= outgoing[i].pieces) continue;  // a child in fewer, larger pieces is done
      const Range seg = segment_range(bytes, outgoing[i].segment, s);
      sends.send(links.children[i], step, buf + seg.offset, seg.count);
    }
  }
  sends.wait_all(step_label(ctx, "{} sends", name));
}

void binomial_bcast_segments(const Context& ctx, std::byte* buf, std::size_t bytes, std::size_t segment_bytes,
                             int root, std::uint32_t step, std::string_view name) {
  if (ctx.size() == 1 || bytes == 0) return;
  // The layout pays where scheduling dominates: messages that go eagerly.
  // Above that the copies dominate, and a same-core edge keeps them in the
  // core's cache (4-rank bcast at 512 KiB: 235 us contiguous, 372 alternating).
  const bool eager = bytes <= ctx.transport.capabilities().eager_limit;
  TreeLinks links = binomial_tree(ctx.rank(), ctx.size(), root, eager ? ctx.tree_layout : TreeLayout::contiguous);
  // The largest subtree first: it has the longest way to go.
  std::reverse(links.children.begin(), links.children.end());
  std::reverse(links.child_sizes.begin(), links.child_sizes.end());
  forward_segments(ctx, links, buf, bytes, segment_bytes, step, name);
}

void bcast_binomial(const Context& ctx, void* buf, std::size_t bytes, int root) {
  binomial_bcast_segments(ctx, static_cast<std::byte*>(buf), bytes, ctx.segment_bytes, root, 0, "bcast binomial");
}

}  // namespace rcoll::collectives
