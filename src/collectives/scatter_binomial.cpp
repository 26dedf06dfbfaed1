// Binomial-tree scatter, for uniform blocks: ceil(lg n) rounds, the
// mirror of gather_binomial. Every rank receives its subtree's blocks
// (relative order, contiguous) from its parent into scratch, keeps its own
// and sends each child its child's run; a leaf receives its block straight
// into recv. The root sends each child's run straight from its place, but
// the one that wraps around the end of send, which it first puts together
// in scratch (binomial_blocks.hpp). lg (alpha) + (n-1)/n S beta, plus the
// copies: each inner rank's own block out of scratch, and the root's
// wrapping run.
#include <cstring>
#include <vector>

#include "collectives/algorithms.hpp"
#include "collectives/binomial_blocks.hpp"
#include "collectives/block_moves.hpp"
#include "collectives/requests.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

void scatter_from_root(const Context& ctx, const std::byte* send, std::size_t e, const TreeLinks& links, int root) {
  const int n = ctx.size();
  const std::vector<Subtree> children = child_subtrees(links, n, root);
  const int wrapping = wrapping_child(children, n, root);
  Scratch stage(wrapping < 0 ? 0 : static_cast<std::size_t>(children[wrapping].ranks) * e);
  if (wrapping >= 0) {
    const SplitRun run = relative_run(children[wrapping].relative, children[wrapping].ranks, root, n);
    std::memcpy(stage.get(), send + run.head.offset * e, run.head.count * e);
    std::memcpy(stage.get() + run.head.count * e, send, run.tail.count * e);
  }
  RequestList sends(ctx);
  for (std::size_t i = 0; i < children.size(); ++i) {
    const Subtree& child = children[i];
    const SplitRun run = relative_run(child.relative, child.ranks, root, n);
    const std::byte* from = static_cast<int>(i) == wrapping ? stage.get() : send + run.head.offset * e;
    sends.send(child.rank, 0, from, static_cast<std::size_t>(child.ranks) * e);
  }
  sends.wait_all(step_label(ctx, "scatter binomial sends from the root"));
}

// An inner rank: its subtree's run into scratch, then each child its part.
void scatter_inner(const Context& ctx, void* recv, std::size_t e, const TreeLinks& links, int root) {
  const int n = ctx.size();
  const int relative = wrap(ctx.rank() - root, n);
  const std::size_t bytes = static_cast<std::size_t>(binomial_subtree_size(relative, n)) * e;
  Scratch stage(bytes);
  receive_message(ctx, links.parent, 0, stage.get(), bytes,
                  step_label(ctx, "scatter binomial receive from rank {}", links.parent));
  RequestList sends(ctx);
  for (const Subtree& child : child_subtrees(links, n, root)) {
    const std::byte* from = stage.get() + static_cast<std::size_t>(child.relative - relative) * e;
    sends.send(child.rank, 0, from, static_cast<std::size_t>(child.ranks) * e);
  }
  std::memcpy(recv, stage.get(), e);
  sends.wait_all(step_label(ctx, "scatter binomial sends from rank {}", ctx.rank()));
}

}  // namespace

void scatter_binomial(const Context& ctx, const void* send, void* recv, const Blocks& blocks, int root) {
  const int n = ctx.size();
  const int rank = ctx.rank();
  const std::size_t e = blocks.bytes(rank);
  const auto* in = static_cast<const std::byte*>(send);
  if (rank == root) copy_block(recv, in + blocks.offset(root), e);
  if (n == 1 || e == 0) return;
  const TreeLinks links = binomial_tree(rank, n, root);
  if (rank == root) return scatter_from_root(ctx, in, e, links, root);
  if (links.children.empty())
    return receive_message(ctx, links.parent, 0, recv, e,
                           step_label(ctx, "scatter binomial receive from rank {}", links.parent));
  scatter_inner(ctx, recv, e, links, root);
}

}  // namespace rcoll::collectives
