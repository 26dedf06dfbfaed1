// Tree allreduce: binomial-tree reduce to rank 0, then binomial-tree bcast
// of rank 0's result; 2 ceil(log2 n) message latencies, for small vectors.
// Both phases are pipelined in segments. Each rank combines its own vector
// with its children's partial results from the smallest subtree up, so rank
// 0 computes x0 op x1 op x2 ... in one fixed bracketing, and everyone
// receives that one result.
#include <algorithm>
#include <memory>

#include "collectives/algorithms.hpp"
#include "collectives/reduce.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

constexpr std::uint32_t reduce_step = 0;
constexpr std::uint32_t bcast_step = 1;

struct Vector {
  const std::byte* input;  // this rank's contribution
  std::byte* output;       // partial, then final, result
  std::size_t count;
  std::size_t element_size;
  std::size_t segment;  // elements
};

// The reduce phase's receives in the order they are consumed: segment s
// from every child (smallest subtree first), each into scratch slot (item
// index mod slots).
class ChildReceives final : public RecvSource {
 public:
  ChildReceives(const Vector& v, const TreeLinks& links, std::byte* scratch, std::size_t slots)
      : v_(v), links_(links), scratch_(scratch), slots_(slots) {}
  RecvItem next() override {
    const std::size_t children = links_.children.size();
    const std::size_t s = index_ / children;
    const int child = links_.children[index_ % children];
    std::byte* buf = scratch_ + (index_ % slots_) * v_.segment * v_.element_size;
    ++index_;
    return {child, reduce_step, buf, segment_range(v_.count, v_.segment, s).count * v_.element_size};
  }

 private:
  const Vector& v_;
  const TreeLinks& links_;
  std::byte* scratch_;
  std::size_t slots_;
  std::size_t index_ = 0;
};

void reduce_phase(const Context& ctx, const Vector& v, DataType type, ReduceOp op) {
  const TreeLinks links = binomial_tree(ctx.rank(), ctx.size(), 0);
  const std::size_t segments = segment_count(v.count, v.segment);
  const std::size_t children = links.children.size();
  const std::size_t depth = std::max<std::size_t>(1, ctx.depth * children);  // ctx.depth from every child
  Scratch scratch(children == 0 ? 0 : depth * v.segment * v.element_size);
  ChildReceives items(v, links, scratch.get(), depth);
  RequestList sends(ctx);
  RecvWindow window(ctx, segments * children, items, depth);
  // A leaf sends its own input; an inner rank its partial result.
  const std::byte* partial = children == 0 ? v.input : v.output;
  const auto send_label = step_label(ctx, "allreduce tree reduce send to rank {}", links.parent);
  std::size_t index = 0;
  for (std::size_t s = 0; s < segments; ++s) {
    const Range seg = segment_range(v.count, v.segment, s);
    const std::size_t offset = seg.offset * v.element_size;
    for (std::size_t c = 0; c < children; ++c, ++index) {
      const RecvItem item = window.wait(
          index, step_label(ctx, "allreduce tree reduce from rank {} segment {}/{}", links.children[c], s + 1,
                            segments));
      const std::byte* left = c == 0 ? v.input + offset : v.output + offset;
      reduce(v.output + offset, left, item.buf, seg.count, type, op);
      window.release();
    }
    // The parent takes ctx.depth segments ahead from each child; more in
    // flight would only wait in its transport (the tree has no cycle, so
    // waiting here for the parent cannot close one).
    if (links.parent >= 0)
      sends.send_bounded(links.parent, reduce_step, partial + offset, seg.count * v.element_size, ctx.depth,
                         send_label);
  }
  // The bcast phase receives into the buffer these sends read from.
  sends.wait_all(send_label);
}

}  // namespace

void allreduce_tree(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type,
                    ReduceOp op) {
  if (allreduce_trivial(ctx, send, recv, count, type)) return;
  const std::size_t element_size = dtype_size(type);
  const Vector v{static_cast<const std::byte*>(send), static_cast<std::byte*>(recv), count, element_size,
                 run_segment(count, element_size, ctx.segment_bytes)};
  reduce_phase(ctx, v, type, op);
  binomial_bcast_segments(ctx, v.output, count * element_size, v.segment * element_size, 0, bcast_step,
                          "allreduce tree bcast");
}

}  // namespace rcoll::collectives
