// Bruck allgather, for uniform blocks and any number of ranks: ceil(lg n)
// steps. The blocks are gathered in rotated order, slot j holding block
// rank + j (mod n): step k (d = 2^k) sends the first min(d, n - d) slots to
// rank - d and receives as many from rank + d into slots d, d + 1, ...
// (they are that rank's first slots). One local rotation then puts the
// slots in place. Rank 0's rotation is the identity, so it works in recv
// itself; every other rank works in a scratch buffer of S bytes.
// lg (alpha) + (n-1)/n S beta, plus the copies of S/n in and S out.
#include <algorithm>
#include <cstring>

#include "collectives/algorithms.hpp"
#include "collectives/block_moves.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {

void allgather_bruck(const Context& ctx, const void* send, void* recv, const Blocks& blocks) {
  const int n = ctx.size();
  const int rank = ctx.rank();
  auto* out = static_cast<std::byte*>(recv);
  const std::size_t e = blocks.bytes(rank);
  if (n == 1 || e == 0) return copy_block(out + blocks.offset(rank), send, e);
  Scratch scratch(rank == 0 ? 0 : static_cast<std::size_t>(n) * e);
  std::byte* slots = rank == 0 ? out : scratch.get();
  copy_block(slots, send, e);
  const int steps = ceil_log2(n);
  for (int k = 0; k < steps; ++k) {
    const int d = 1 << k;
    const int from = wrap(rank + d, n);
    const int to = wrap(rank - d, n);
    const std::size_t bytes = static_cast<std::size_t>(std::min(d, n - d)) * e;
    RequestList requests(ctx);
    requests.add(ctx.transport.irecv(from, ctx.tag(static_cast<std::uint32_t>(k)), slots + d * e, bytes));
    requests.send(to, static_cast<std::uint32_t>(k), slots, bytes);
    requests.wait_all(step_label(ctx, "allgather bruck step {}/{} (to rank {}, from rank {})", k + 1, steps, to, from));
  }
  if (rank == 0) return;
  // Slots 0 .. n - rank - 1 are blocks rank .. n - 1; the rest blocks 0 .. rank - 1.
  const std::size_t head = static_cast<std::size_t>(n - rank) * e;
  std::memcpy(out + blocks.offset(rank), slots, head);
  std::memcpy(out, slots + head, static_cast<std::size_t>(rank) * e);
}

}  // namespace rcoll::collectives
