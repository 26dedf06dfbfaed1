// Linear scatter, for any blocks (the only scatterv algorithm): the root
// sends each non-empty block in one message straight from its place, and
// every other rank receives its block straight into recv. (n - 1) alpha at
// the root, (n - 1)/n S beta over its link: for large blocks, and the
// v-variant.
//
// A non-root rank reads only blocks.bytes(rank) (collectives.hpp: the
// counts of scatterv are significant at the root only).
#include "collectives/algorithms.hpp"
#include "collectives/block_moves.hpp"
#include "collectives/requests.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {

void scatter_linear(const Context& ctx, const void* send, void* recv, const Blocks& blocks, int root) {
  const int rank = ctx.rank();
  if (rank != root)
    return receive_message(ctx, root, 0, recv, blocks.bytes(rank),
                           step_label(ctx, "scatter linear receive from rank {}", root));
  const auto* in = static_cast<const std::byte*>(send);
  RequestList sends(ctx);
  for (int r = 0; r < ctx.size(); ++r)
    if (r != root && blocks.bytes(r) > 0) sends.send(r, 0, in + blocks.offset(r), blocks.bytes(r));
  copy_block(recv, in + blocks.offset(root), blocks.bytes(root));
  sends.wait_all(step_label(ctx, "scatter linear sends from the root"));
}

}  // namespace rcoll::collectives
