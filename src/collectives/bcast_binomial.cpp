// Binomial-tree bcast: ceil(log2 n) rounds, for small messages. In pieces,
// so that for larger messages a rank forwards the first piece while later
// ones are still on their way to it.
#include <algorithm>

#include "collectives/algorithms.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {

void forward_segments(const Context& ctx, const TreeLinks& links, std::byte* buf, std::size_t bytes,
                      std::size_t segment_bytes, std::uint32_t step, std::string_view name) {
  const bool root = links.parent < 0;
  const std::size_t pieces = segment_count(bytes, segment_bytes);
  std::vector<RecvItem> items;
  if (!root) {
    items.reserve(pieces);
    for (std::size_t s = 0; s < pieces; ++s) {
      const Range piece = segment_range(bytes, segment_bytes, s);
      items.push_back({links.parent, step, buf + piece.offset, piece.count});
    }
  }
  RequestList sends(ctx);
  RecvWindow receives(ctx, std::move(items), ctx.depth);
  for (std::size_t s = 0; s < pieces; ++s) {
    if (!root) {
      receives.wait(s, step_label(ctx, "{} from rank {} segment {}/{}", name, links.parent, s + 1, pieces));
      receives.release();
    }
    const Range piece = segment_range(bytes, segment_bytes, s);
    for (int child : links.children) sends.send(child, step, buf + piece.offset, piece.count);
  }
  sends.wait_all(step_label(ctx, "{} sends", name));
}

void binomial_bcast_segments(const Context& ctx, std::byte* buf, std::size_t bytes, std::size_t segment_bytes,
                             int root, std::uint32_t step, std::string_view name) {
  if (ctx.size() == 1 || bytes == 0) return;
  TreeLinks links = binomial_tree(ctx.rank(), ctx.size(), root);
  // The largest subtree first: it has the longest way to go.
  std::reverse(links.children.begin(), links.children.end());
  forward_segments(ctx, links, buf, bytes, segment_bytes, step, name);
}

void bcast_binomial(const Context& ctx, void* buf, std::size_t bytes, int root) {
  binomial_bcast_segments(ctx, static_cast<std::byte*>(buf), bytes, ctx.segment_bytes, root, 0, "bcast binomial");
}

}  // namespace rcoll::collectives
