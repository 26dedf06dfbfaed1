// Bruck alltoall (uniform blocks, small messages): ceil(log2 n) steps
// instead of n - 1. After a local rotation, index i holds the block bound
// for rank + i; step k (distance d = 2^k) sends every block whose index has
// bit k set to rank + d, and receives the same indices from rank - d. A
// block at index i thus travels i ranks in the steps of i's bits and ends
// at rank + i, so at the end index i holds the block from rank - i, which
// the inverse rotation puts at recv block rank - i.
//
// lg alpha + about lg S/2 beta (each step moves about half the blocks),
// plus the local copies: the two rotations (S each) and the packing and
// unpacking of every step (S/2 each). All of it in scratch: 2 S.
#include <cstring>

#include "collectives/algorithms.hpp"
#include "collectives/requests.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {

void alltoall_bruck(const Context& ctx, const void* send, const Blocks& send_blocks, void* recv,
                    const Blocks& recv_blocks) {
  const int n = ctx.size();
  const int rank = ctx.rank();
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  const std::size_t block = send_blocks.bytes(rank);  // uniform: every block is this size
  if (block > 0) std::memcpy(out + recv_blocks.offset(rank), in + send_blocks.offset(rank), block);
  if (n == 1 || block == 0) return;
  const auto un = static_cast<std::size_t>(n);
  const std::size_t half = (un / 2 + 1) * block;  // more than the blocks any step moves
  Scratch scratch(un * block + 2 * half);
  std::byte* rotated = scratch.get();  // index i: the block bound for rank + i
  std::byte* outgoing = rotated + un * block;
  std::byte* incoming = outgoing + half;
  for (int i = 1; i < n; ++i)
    std::memcpy(rotated + static_cast<std::size_t>(i) * block, in + send_blocks.offset(wrap(rank + i, n)), block);
  const int steps = ceil_log2(n);
  for (int k = 0; k < steps; ++k) {
    const int d = 1 << k;
    std::size_t moved = 0;
    for (int i = d; i < n; ++i)
      if ((i & d) != 0) std::memcpy(outgoing + moved++ * block, rotated + static_cast<std::size_t>(i) * block, block);
    const int to = wrap(rank + d, n);
    const int from = wrap(rank - d, n);
    RequestList requests(ctx);
    requests.add(ctx.transport.irecv(from, ctx.tag(static_cast<std::uint32_t>(k)), incoming, moved * block));
    requests.send(to, static_cast<std::uint32_t>(k), outgoing, moved * block);
    requests.wait_all(step_label(ctx, "alltoall bruck step {}/{} (to rank {}, from rank {})", k + 1, steps, to, from));
    moved = 0;
    for (int i = d; i < n; ++i)
      if ((i & d) != 0) std::memcpy(rotated + static_cast<std::size_t>(i) * block, incoming + moved++ * block, block);
  }
  for (int i = 1; i < n; ++i)
    std::memcpy(out + recv_blocks.offset(wrap(rank - i, n)), rotated + static_cast<std::size_t>(i) * block, block);
}

}  // namespace rcoll::collectives
