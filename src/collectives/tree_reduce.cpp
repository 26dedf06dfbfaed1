#include "collectives/tree_reduce.hpp"

#include <algorithm>
#include <vector>

#include "collectives/reduce.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

// The receives in the order they are consumed: piece s from every child
// (smallest subtree first), each into scratch slot (item index mod slots).
class ChildReceives final : public RecvSource {
 public:
  ChildReceives(const TreeReduce& t, const TreeLinks& links, std::size_t element_size, std::byte* scratch,
                std::size_t slots)
      : t_(t), links_(links), element_size_(element_size), scratch_(scratch), slots_(slots) {}
  RecvItem next() override {
    const std::size_t children = links_.children.size();
    const std::size_t s = index_ / children;
    const int child = links_.children[index_ % children];
    std::byte* buf = scratch_ + (index_ % slots_) * t_.segment * element_size_;
    ++index_;
    return {child, t_.step, buf, segment_range(t_.count, t_.segment, s).count * element_size_};
  }

 private:
  const TreeReduce& t_;
  const TreeLinks& links_;
  std::size_t element_size_;
  std::byte* scratch_;
  std::size_t slots_;
  std::size_t index_ = 0;
};

// The sends of pieces s mod `bound`: at most `bound` pending, and the
// rest of the pipeline knows which. Cancels what is still pending when it
// goes out of scope early (an exception), as RequestList does.
class SendSlots {
 public:
  SendSlots(const Context& ctx, std::size_t bound) : ctx_(ctx), slots_(bound) {}
  ~SendSlots() {
    for (const auto& request : slots_) {
      if (!request || !request->pending()) continue;
      try {  // destructors must not throw; a transport that fails to cancel is already broken
        ctx_.transport.cancel(*request);
      } catch (...) {
      }
    }
  }
  SendSlots(const SendSlots&) = delete;
  SendSlots& operator=(const SendSlots&) = delete;

  // Waits until the send in `slot` (if any) has completed.
  void drain(std::size_t slot, const LazyText& label) {
    if (!slots_[slot]) return;
    transport::wait(ctx_.transport, slots_[slot], ctx_.deadline, label);
    slots_[slot].reset();
  }
  void send(std::size_t slot, int peer, std::uint32_t step, const std::byte* buf, std::size_t bytes) {
    slots_[slot] = ctx_.transport.isend(peer, ctx_.tag(step), buf, bytes);
  }
  void drain_all(const LazyText& label) {
    for (std::size_t slot = 0; slot < slots_.size(); ++slot) drain(slot, label);
  }

 private:
  const Context& ctx_;
  std::vector<transport::RequestPtr> slots_;
};

}  // namespace

void binomial_reduce_segments(const Context& ctx, const TreeReduce& t, DataType type, ReduceOp op) {
  const std::size_t element_size = dtype_size(type);
  const TreeLinks links = binomial_tree(ctx.rank(), ctx.size(), t.root);
  const std::size_t segments = segment_count(t.count, t.segment);
  const std::size_t children = links.children.size();
  const std::size_t bound = std::max<std::size_t>(ctx.depth, 1);  // sends pending, and partial-result slots
  const std::size_t depth = bound * children;                       // receives posted: bound from every child
  const std::size_t piece_bytes = t.segment * element_size;
  Scratch scratch(children == 0 ? 0 : depth * piece_bytes);
  Scratch partials(children > 0 && t.output == nullptr ? bound * piece_bytes : 0);
  ChildReceives items(t, links, element_size, scratch.get(), std::max<std::size_t>(depth, 1));
  RecvWindow window(ctx, segments * children, items, depth);
  // Piece s's send is in slot s % bound: piece s + bound waits for it
  // before reusing its partial-result slot and before sending (the parent
  // takes `bound` pieces ahead; the tree has no cycle, so waiting here for
  // the parent cannot close one).
  SendSlots sends(ctx, bound);
  const auto send_label = step_label(ctx, "{} send to rank {}", t.name, links.parent);
  std::size_t index = 0;
  for (std::size_t s = 0; s < segments; ++s) {
    const Range seg = segment_range(t.count, t.segment, s);
    const std::byte* in = t.input + seg.offset * element_size;
    sends.drain(s % bound, send_label);
    // A leaf sends its own input; an inner rank its partial result.
    std::byte* out = t.output != nullptr ? t.output + seg.offset * element_size
                                         : partials.get() + (s % bound) * piece_bytes;
    for (std::size_t c = 0; c < children; ++c, ++index) {
      const RecvItem item = window.wait(
          index, step_label(ctx, "{} from rank {} segment {}/{}", t.name, links.children[c], s + 1, segments));
      reduce(out, c == 0 ? in : out, item.buf, seg.count, type, op);
      window.release();
    }
    if (links.parent >= 0)
      sends.send(s % bound, links.parent, t.step, children == 0 ? in : out, seg.count * element_size);
  }
  sends.drain_all(send_label);
}

}  // namespace rcoll::collectives
