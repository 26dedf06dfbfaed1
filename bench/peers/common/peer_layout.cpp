#include "common/peer_layout.hpp"

namespace rcoll::peers {

bool is_blocked(PeerOp op) noexcept {
  return op == PeerOp::allgather || op == PeerOp::reduce_scatter || op == PeerOp::alltoall ||
         op == PeerOp::gather || op == PeerOp::scatter;
}

bool result_on_root_only(PeerOp op) noexcept { return op == PeerOp::reduce || op == PeerOp::gather; }

bool is_reduction(PeerOp op) noexcept {
  return op == PeerOp::allreduce || op == PeerOp::reduce || op == PeerOp::reduce_scatter;
}

bool takes_root(PeerOp op) noexcept {
  return op == PeerOp::bcast || op == PeerOp::reduce || op == PeerOp::gather || op == PeerOp::scatter;
}

PeerLayout peer_layout(PeerOp op, std::size_t bytes, int ranks, bool inplace) {
  const auto n = static_cast<std::size_t>(ranks);
  const std::size_t elements = bytes / sizeof(float);
  PeerLayout layout;
  layout.block = is_blocked(op) ? elements / n : elements;
  layout.count = is_blocked(op) ? layout.block * n : layout.block;
  layout.bytes = layout.count * sizeof(float);
  switch (op) {
    case PeerOp::allreduce: case PeerOp::reduce:
      layout.send_count = op == PeerOp::allreduce && inplace ? 0 : layout.count;
      layout.recv_count = layout.count;
      break;
    case PeerOp::bcast: layout.recv_count = layout.count; break;
    case PeerOp::allgather: case PeerOp::gather:
      layout.send_count = layout.block;
      layout.recv_count = layout.count;
      break;
    case PeerOp::reduce_scatter: case PeerOp::scatter:
      layout.send_count = layout.count;
      layout.recv_count = layout.block;
      break;
    case PeerOp::alltoall:
      layout.send_count = layout.count;
      layout.recv_count = layout.count;
      break;
  }
  return layout;
}

double bus_factor(PeerOp op, int ranks) noexcept {
  const double n = ranks;
  switch (op) {
    case PeerOp::allreduce: return 2.0 * (n - 1) / n;
    case PeerOp::allgather: case PeerOp::reduce_scatter: case PeerOp::alltoall: return (n - 1) / n;
    case PeerOp::bcast: case PeerOp::reduce: case PeerOp::gather: case PeerOp::scatter: return 1.0;
  }
  return 1.0;
}

}  // namespace rcoll::peers
