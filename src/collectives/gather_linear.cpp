// Linear gather, for any blocks (the only gatherv algorithm): the root
// posts one receive per non-empty block straight into place and every
// other rank sends its block in one message. (n - 1) alpha at the root,
// (n - 1)/n S beta over its link: for large blocks, and the v-variant.
//
// A non-root rank reads only blocks.bytes(rank) (collectives.hpp: the
// counts of gatherv are significant at the root only).
#include "collectives/algorithms.hpp"
#include "collectives/block_moves.hpp"
#include "collectives/requests.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {

void gather_linear(const Context& ctx, const void* send, void* recv, const Blocks& blocks, int root) {
  const int rank = ctx.rank();
  if (rank != root)
    return send_message(ctx, root, 0, send, blocks.bytes(rank), step_label(ctx, "gather linear send to rank {}", root));
  auto* out = static_cast<std::byte*>(recv);
  copy_block(out + blocks.offset(root), send, blocks.bytes(root));
  RequestList receives(ctx);
  for (int r = 0; r < ctx.size(); ++r)
    if (r != root && blocks.bytes(r) > 0)
      receives.add(ctx.transport.irecv(r, ctx.tag(0), out + blocks.offset(r), blocks.bytes(r)));
  receives.wait_all(step_label(ctx, "gather linear receives at the root"));
}

}  // namespace rcoll::collectives
