// Recursive doubling allgather, for uniform blocks. With p = the largest
// power of two <= n, active rank i < p holds after step k the blocks of
// the 2^(k+1) active ranks that share its high bits: step k exchanges the
// 2^k blocks it has with partner i ^ 2^k, both ranges contiguous in recv.
//
// When n is not a power of two, rank p + i (i < n - p) first folds its
// block into rank i, which carries it as part of its own: each exchange
// step also swaps the folded blocks p + [range] of the ranges (a second
// message, contiguous too, empty once past the folded ranks). At the end
// rank i sends everything but p + i's own block back to it (two messages).
// Cost: lg p (alpha + ...) steps moving (n-1)/n S beta, plus, when n is not
// a power of two, the fold (alpha + S/n beta) and the unfold (alpha +
// (n-1)/n S beta): about twice the bytes, which is why the plan takes it
// only for small messages there, where Bruck is usually cheaper still.
#include <algorithm>

#include "collectives/algorithms.hpp"
#include "collectives/block_moves.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

constexpr std::uint32_t fold_step = 0;
constexpr std::uint32_t unfold_low_step = 1;   // blocks below the folded rank's own
constexpr std::uint32_t unfold_high_step = 2;  // blocks above it
constexpr std::uint32_t first_exchange_step = 3;  // step k: 3 + 2k (active blocks), 4 + 2k (folded blocks)

// Blocks [first, end) of recv, each `e` bytes, as one piece of memory.
struct Span {
  std::byte* at;
  std::size_t bytes;
};
Span span(std::byte* recv, std::size_t e, int first, int end) {
  return {recv + static_cast<std::size_t>(first) * e, end > first ? static_cast<std::size_t>(end - first) * e : 0};
}

void post_receive(const Context& ctx, RequestList& requests, int peer, std::uint32_t step, Span s) {
  if (s.bytes > 0) requests.add(ctx.transport.irecv(peer, ctx.tag(step), s.at, s.bytes));
}
void post_send(RequestList& requests, int peer, std::uint32_t step, Span s) {
  if (s.bytes > 0) requests.send(peer, step, s.at, s.bytes);
}

// Step k of an active rank: its 2^k active blocks and their folded ones
// against the partner's.
void exchange(const Context& ctx, std::byte* recv, std::size_t e, const DoublingPlan& plan, int k) {
  const int rank = ctx.rank();
  const int extra = ctx.size() - plan.pof2;
  const int width = 1 << k;
  const int peer = doubling_partner(rank, k);
  const int mine = rank & ~(width - 1);
  const int theirs = peer & ~(width - 1);
  const auto step = first_exchange_step + 2 * static_cast<std::uint32_t>(k);
  const auto folded = [&](int first) {
    return span(recv, e, plan.pof2 + first, plan.pof2 + std::min(first + width, extra));
  };
  RequestList requests(ctx);
  post_receive(ctx, requests, peer, step, span(recv, e, theirs, theirs + width));
  post_receive(ctx, requests, peer, step + 1, folded(theirs));
  post_send(requests, peer, step, span(recv, e, mine, mine + width));
  post_send(requests, peer, step + 1, folded(mine));
  requests.wait_all(step_label(ctx, "allgather rd step {}/{} with rank {}", k + 1, plan.steps, peer));
}

}  // namespace

void allgather_recursive_doubling(const Context& ctx, const void* send, void* recv, const Blocks& blocks) {
  const int n = ctx.size();
  const int rank = ctx.rank();
  auto* out = static_cast<std::byte*>(recv);
  const std::size_t e = blocks.bytes(rank);
  copy_block(out + blocks.offset(rank), send, e);
  if (n == 1 || e == 0) return;
  const DoublingPlan plan = doubling_plan(rank, n);
  const int partner = plan.fold_partner;
  if (plan.folded) {
    RequestList requests(ctx);
    post_receive(ctx, requests, partner, unfold_low_step, span(out, e, 0, rank));
    post_receive(ctx, requests, partner, unfold_high_step, span(out, e, rank + 1, n));
    post_send(requests, partner, fold_step, span(out, e, rank, rank + 1));
    requests.wait_all(step_label(ctx, "allgather rd fold into and unfold from rank {}", partner));
    return;
  }
  if (partner >= 0)
    receive_message(ctx, partner, fold_step, out + static_cast<std::size_t>(partner) * e, e,
                    step_label(ctx, "allgather rd fold from rank {}", partner));
  for (int k = 0; k < plan.steps; ++k) exchange(ctx, out, e, plan, k);
  if (partner < 0) return;
  RequestList requests(ctx);
  post_send(requests, partner, unfold_low_step, span(out, e, 0, partner));
  post_send(requests, partner, unfold_high_step, span(out, e, partner + 1, n));
  requests.wait_all(step_label(ctx, "allgather rd unfold to rank {}", partner));
}

}  // namespace rcoll::collectives
