// Binomial-tree bcast: ceil(log2 n) rounds, for small messages. In pieces,
// so that for larger messages a rank forwards the first piece while later
// ones are still on their way to it.
#include <algorithm>

#include "collectives/algorithms.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {

namespace {

// The pieces of `bytes` at `buf` from `parent`, in place, in order.
class PieceReceives final : public RecvSource {
 public:
  PieceReceives(int parent, std::uint32_t step, std::byte* buf, std::size_t bytes, std::size_t segment_bytes)
      : parent_(parent), step_(step), buf_(buf), bytes_(bytes), segment_bytes_(segment_bytes) {}
  RecvItem next() override {
    const Range piece = segment_range(bytes_, segment_bytes_, index_++);
    return {parent_, step_, buf_ + piece.offset, piece.count};
  }

 private:
  int parent_;
  std::uint32_t step_;
  std::byte* buf_;
  std::size_t bytes_;
  std::size_t segment_bytes_;
  std::size_t index_ = 0;
};

}  // namespace

void forward_segments(const Context& ctx, const TreeLinks& links, std::byte* buf, std::size_t bytes,
                      std::size_t segment_bytes, std::uint32_t step, std::string_view name) {
  const bool root = links.parent < 0;
  const std::size_t pieces = segment_count(bytes, segment_bytes);
  PieceReceives items(links.parent, step, buf, bytes, segment_bytes);
  RequestList sends(ctx);
  RecvWindow receives(ctx, root ? 0 : pieces, items, ctx.depth);
  // Each child takes ctx.depth pieces ahead; more in flight would only wait
  // in the transport (a tree has no cycle: waiting on a child cannot close one).
  const std::size_t in_flight = std::max<std::size_t>(1, ctx.depth * links.children.size());
  const auto send_label = step_label(ctx, "{} sends", name);
  for (std::size_t s = 0; s < pieces; ++s) {
    if (!root) {
      receives.wait(s, step_label(ctx, "{} from rank {} segment {}/{}", name, links.parent, s + 1, pieces));
      receives.release();
    }
    const Range piece = segment_range(bytes, segment_bytes, s);
    for (int child : links.children) sends.send_bounded(child, step, buf + piece.offset, piece.count, in_flight, send_label);
  }
  sends.wait_all(send_label);
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
