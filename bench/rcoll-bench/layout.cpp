#include "layout.hpp"

namespace rcoll::bench {

bool splits_into_blocks(BenchOp op) noexcept {
  switch (op) {
    case BenchOp::allgather: case BenchOp::reduce_scatter: case BenchOp::alltoall: case BenchOp::gather:
    case BenchOp::scatter:
      return true;
    case BenchOp::allreduce: case BenchOp::bcast: case BenchOp::barrier: case BenchOp::reduce: break;
  }
  return false;
}

SizeLayout layout_size(BenchOp op, std::size_t bytes, std::size_t element, int ranks) noexcept {
  if (op == BenchOp::barrier) return {};
  const std::size_t parts = splits_into_blocks(op) ? static_cast<std::size_t>(ranks) : 1;
  const std::size_t block = bytes / element / parts;
  return {block, block * parts * element};
}

double bus_factor(BenchOp op, int ranks) noexcept {
  const double n = ranks;
  switch (op) {
    case BenchOp::allreduce: return 2.0 * (n - 1) / n;
    case BenchOp::allgather: case BenchOp::reduce_scatter: case BenchOp::alltoall: return (n - 1) / n;
    case BenchOp::bcast: case BenchOp::reduce: case BenchOp::gather: case BenchOp::scatter: return 1.0;
    case BenchOp::barrier: break;
  }
  return 0.0;
}

}  // namespace rcoll::bench
