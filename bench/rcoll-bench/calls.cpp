#include "calls.hpp"

namespace rcoll::bench {

CallBuffers call_buffers(const RankPlan& plan, BenchOp op, void* send, void* recv) noexcept {
  CallBuffers call{plan.send_count != 0 ? send : nullptr, plan.recv_count != 0 ? recv : nullptr};
  if (plan.in_place && op == BenchOp::scatter) call.recv = const_cast<void*>(in_place);  // the API's own marker
  else if (plan.in_place) call.send = in_place;
  return call;
}

void run_call(Comm& comm, const BenchOptions& o, std::size_t block, const CallBuffers& b) {
  switch (o.op) {
    case BenchOp::allreduce:
      if (b.send == in_place) comm.allreduce(b.recv, block, o.dtype, o.redop);
      else comm.allreduce(b.send, b.recv, block, o.dtype, o.redop);
      return;
    case BenchOp::bcast: comm.bcast(b.recv, block, o.dtype, o.root); return;
    case BenchOp::barrier: comm.barrier(); return;
    case BenchOp::reduce: comm.reduce(b.send, b.recv, block, o.dtype, o.redop, o.root); return;
    case BenchOp::allgather: comm.allgather(b.send, b.recv, block, o.dtype); return;
    case BenchOp::reduce_scatter: comm.reduce_scatter(b.send, b.recv, block, o.dtype, o.redop); return;
    case BenchOp::alltoall: comm.alltoall(b.send, b.recv, block, o.dtype); return;
    case BenchOp::gather: comm.gather(b.send, b.recv, block, o.dtype, o.root); return;
    case BenchOp::scatter: comm.scatter(b.send, b.recv, block, o.dtype, o.root); return;
  }
}

}  // namespace rcoll::bench
