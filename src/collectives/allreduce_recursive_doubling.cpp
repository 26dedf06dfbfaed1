// Recursive doubling allreduce: log2(p) steps in which partners at distance
// 1, 2, 4, ... exchange and combine full vectors (p = largest power of two
// <= n); the n - p extra ranks fold their vectors into ranks 0 .. n-p-1
// first and receive the result from them last. lg p (alpha + S beta) plus
// two steps when n is not a power of two: for small messages.
//
// Every combine puts the lower rank's data on the left, so both partners of
// a step compute bitwise the same value, and in the end so do all ranks.
#include <cstring>
#include <memory>

#include "collectives/algorithms.hpp"
#include "collectives/reduce.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

constexpr std::uint32_t fold_step = 0;
constexpr std::uint32_t unfold_step = 1;
constexpr std::uint32_t first_exchange_step = 2;

void send_to(const Context& ctx, int peer, std::uint32_t step, const void* buf, std::size_t bytes,
             LazyText label) {
  RequestList request(ctx);
  request.send(peer, step, buf, bytes);
  request.wait_all(label);
}

void receive_from(const Context& ctx, int peer, std::uint32_t step, void* buf, std::size_t bytes,
                  LazyText label) {
  RequestList request(ctx);
  request.add(ctx.transport.irecv(peer, ctx.tag(step), buf, bytes));
  request.wait_all(label);
}

// Sends `data` to `peer` and receives the peer's vector into `incoming`.
void exchange(const Context& ctx, int peer, std::uint32_t step, const std::byte* data, std::byte* incoming,
              std::size_t bytes, LazyText label) {
  RequestList requests(ctx);
  requests.add(ctx.transport.irecv(peer, ctx.tag(step), incoming, bytes));
  requests.send(peer, step, data, bytes);
  requests.wait_all(label);
}

}  // namespace

void allreduce_recursive_doubling(const Context& ctx, const void* send, void* recv, std::size_t count,
                                  DataType type, ReduceOp op) {
  if (allreduce_trivial(ctx, send, recv, count, type)) return;
  const std::size_t bytes = count * dtype_size(type);
  auto* result = static_cast<std::byte*>(recv);
  if (send != recv) std::memcpy(result, send, bytes);
  const int rank = ctx.rank();
  const DoublingPlan plan = doubling_plan(rank, ctx.size());
  if (plan.folded) {
    send_to(ctx, plan.fold_partner, fold_step, result, bytes,
            step_label(ctx, "allreduce rd fold into rank {}", plan.fold_partner));
    receive_from(ctx, plan.fold_partner, unfold_step, result, bytes,
                 step_label(ctx, "allreduce rd unfold from rank {}", plan.fold_partner));
    return;
  }
  Scratch incoming(bytes);
  if (plan.fold_partner >= 0) {
    receive_from(ctx, plan.fold_partner, fold_step, incoming.get(), bytes,
                 step_label(ctx, "allreduce rd fold from rank {}", plan.fold_partner));
    reduce(result, result, incoming.get(), count, type, op);
  }
  for (int step = 0; step < plan.steps; ++step) {
    const int peer = doubling_partner(rank, step);
    exchange(ctx, peer, first_exchange_step + static_cast<std::uint32_t>(step), result, incoming.get(), bytes,
             step_label(ctx, "allreduce rd step {}/{} with rank {}", step + 1, plan.steps, peer));
    if (rank < peer)
      reduce(result, result, incoming.get(), count, type, op);
    else
      reduce(result, incoming.get(), result, count, type, op);
  }
  if (plan.fold_partner >= 0)
    send_to(ctx, plan.fold_partner, unfold_step, result, bytes,
            step_label(ctx, "allreduce rd unfold to rank {}", plan.fold_partner));
}

}  // namespace rcoll::collectives
