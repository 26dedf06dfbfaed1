// Entry points: dispatch to one algorithm file each.
#include "collectives/collectives.hpp"

#include <cstring>
#include <string>

#include "collectives/algorithms.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::collectives {

bool allreduce_trivial(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type) {
  if (count == 0) return true;
  if (ctx.size() > 1) return false;
  if (send != recv) std::memcpy(recv, send, count * dtype_size(type));
  return true;
}

void allreduce(const Context& ctx, AllreduceAlgo algo, const void* send, void* recv, std::size_t count,
               DataType type, ReduceOp op) {
  if (algo == AllreduceAlgo::automatic)
    algo = choose_allreduce(count * dtype_size(type), ctx.size(), ctx.transport.capabilities());
  switch (algo) {
    case AllreduceAlgo::ring: return allreduce_ring(ctx, send, recv, count, type, op);
    case AllreduceAlgo::tree: return allreduce_tree(ctx, send, recv, count, type, op);
    case AllreduceAlgo::recursive_doubling: return allreduce_recursive_doubling(ctx, send, recv, count, type, op);
    case AllreduceAlgo::automatic: break;
  }
  throw InvalidArgument("allreduce: unknown algorithm " + to_string(algo));
}

void bcast(const Context& ctx, BcastAlgo algo, void* buf, std::size_t bytes, int root) {
  if (algo == BcastAlgo::automatic) algo = choose_bcast(bytes, ctx.size(), ctx.transport.capabilities());
  switch (algo) {
    case BcastAlgo::binomial: return bcast_binomial(ctx, buf, bytes, root);
    case BcastAlgo::scatter_allgather: return bcast_scatter_allgather(ctx, buf, bytes, root);
    case BcastAlgo::chain: return bcast_chain(ctx, buf, bytes, root);
    case BcastAlgo::automatic: break;
  }
  throw InvalidArgument("bcast: unknown algorithm " + to_string(algo));
}

void barrier(const Context& ctx) {
  if (ctx.size() > 1) barrier_dissemination(ctx);
}

}  // namespace rcoll::collectives
