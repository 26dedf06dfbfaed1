// Binomial-tree reduce to `root`, pipelined in segments: the tree
// allreduce's reduce phase (tree_reduce.hpp) with the tree rooted at
// `root`. ceil(log2 n) message latencies; every inner rank receives the
// whole vector from each child, so for small and medium vectors.
//
// The result is written to recv at the root only (in place when send ==
// recv there). Non-roots never write their send buffer, nor recv, which may
// be null: an inner rank's partial results go to ctx.depth scratch pieces.
#include <cstring>

#include "collectives/algorithms.hpp"
#include "collectives/tree_reduce.hpp"

namespace rcoll::collectives {

void reduce_binomial(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                     int root) {
  const bool is_root = ctx.rank() == root;
  const std::size_t element_size = dtype_size(type);
  if (count == 0) return;
  if (ctx.size() == 1) {
    if (send != recv) std::memcpy(recv, send, count * element_size);
    return;
  }
  const std::size_t segment = run_segment(count, element_size, ctx.segment_bytes);
  binomial_reduce_segments(ctx, {static_cast<const std::byte*>(send), is_root ? static_cast<std::byte*>(recv) : nullptr,
                                 count, segment, root, 0, "reduce binomial"},
                           type, op);
}

}  // namespace rcoll::collectives
