// Tree allreduce: binomial-tree reduce to rank 0, then binomial-tree bcast
// of rank 0's result; 2 ceil(log2 n) message latencies, for small vectors.
// Both phases are pipelined in segments. Each rank combines its own vector
// with its children's partial results from the smallest subtree up, so rank
// 0 computes x0 op x1 op x2 ... in one fixed bracketing, and everyone
// receives that one result.
#include "collectives/algorithms.hpp"
#include "collectives/schedule.hpp"
#include "collectives/tree_reduce.hpp"

namespace rcoll::collectives {
namespace {

constexpr std::uint32_t reduce_step = 0;
constexpr std::uint32_t bcast_step = 1;

}  // namespace

void allreduce_tree(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type,
                    ReduceOp op) {
  if (allreduce_trivial(ctx, send, recv, count, type)) return;
  const std::size_t element_size = dtype_size(type);
  const std::size_t segment = run_segment(count, element_size, ctx.segment_bytes);
  auto* output = static_cast<std::byte*>(recv);
  // Every rank's partial results go to recv, which the bcast overwrites;
  // the reduce returns once its sends from recv are done.
  binomial_reduce_segments(ctx, {static_cast<const std::byte*>(send), output, count, segment, 0, reduce_step,
                                 "allreduce tree reduce"},
                           type, op);
  binomial_bcast_segments(ctx, output, count * element_size, segment * element_size, 0, bcast_step,
                          "allreduce tree bcast");
}

}  // namespace rcoll::collectives
