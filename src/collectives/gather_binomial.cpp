// Binomial-tree gather, for uniform blocks: ceil(lg n) rounds. Every rank
// receives its children's subtrees (relative order, contiguous) next to
// its own block in scratch and sends the whole run to its parent in one
// message; a leaf sends its block straight from `send`. The root receives
// each child's run straight into place, but the one that wraps around the
// end of recv (binomial_blocks.hpp). lg (alpha) + (n-1)/n S beta, plus the
// copies: each inner rank's own block into scratch, and the root's
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

void gather_at_root(const Context& ctx, std::byte* recv, std::size_t e, const TreeLinks& links, int root) {
  const int n = ctx.size();
  const std::vector<Subtree> children = child_subtrees(links, n, root);
  const int wrapping = wrapping_child(children, n, root);
  Scratch stage(wrapping < 0 ? 0 : static_cast<std::size_t>(children[wrapping].ranks) * e);
  RequestList receives(ctx);
  for (std::size_t i = 0; i < children.size(); ++i) {
    const Subtree& child = children[i];
    const SplitRun run = relative_run(child.relative, child.ranks, root, n);
    std::byte* into = static_cast<int>(i) == wrapping ? stage.get() : recv + run.head.offset * e;
    receives.add(ctx.transport.irecv(child.rank, ctx.tag(0), into, static_cast<std::size_t>(child.ranks) * e));
  }
  receives.wait_all(step_label(ctx, "gather binomial receives at the root"));
  if (wrapping < 0) return;
  const SplitRun run = relative_run(children[wrapping].relative, children[wrapping].ranks, root, n);
  std::memcpy(recv + run.head.offset * e, stage.get(), run.head.count * e);
  std::memcpy(recv, stage.get() + run.head.count * e, run.tail.count * e);
}

// An inner rank: its block and its children's runs into scratch, then the whole run to the parent.
void gather_inner(const Context& ctx, const void* send, std::size_t e, const TreeLinks& links, int root) {
  const int n = ctx.size();
  const int relative = wrap(ctx.rank() - root, n);
  const std::size_t bytes = static_cast<std::size_t>(binomial_subtree_size(relative, n)) * e;
  Scratch stage(bytes);
  std::memcpy(stage.get(), send, e);
  RequestList receives(ctx);
  for (const Subtree& child : child_subtrees(links, n, root)) {
    std::byte* into = stage.get() + static_cast<std::size_t>(child.relative - relative) * e;
    receives.add(ctx.transport.irecv(child.rank, ctx.tag(0), into, static_cast<std::size_t>(child.ranks) * e));
  }
  receives.wait_all(step_label(ctx, "gather binomial receives at rank {}", ctx.rank()));
  send_message(ctx, links.parent, 0, stage.get(), bytes,
               step_label(ctx, "gather binomial send to rank {}", links.parent));
}

}  // namespace

void gather_binomial(const Context& ctx, const void* send, void* recv, const Blocks& blocks, int root) {
  const int n = ctx.size();
  const int rank = ctx.rank();
  const std::size_t e = blocks.bytes(rank);
  if (rank == root) copy_block(static_cast<std::byte*>(recv) + blocks.offset(root), send, e);
  if (n == 1 || e == 0) return;
  const TreeLinks links = binomial_tree(rank, n, root);
  if (rank == root) return gather_at_root(ctx, static_cast<std::byte*>(recv), e, links, root);
  if (links.children.empty())
    return send_message(ctx, links.parent, 0, send, e,
                        step_label(ctx, "gather binomial send to rank {}", links.parent));
  gather_inner(ctx, send, e, links, root);
}

}  // namespace rcoll::collectives
