// Comm's non-blocking calls: the blocking calls' arguments handed to
// CommImpl in Mode::issued, the issued call wrapped in a Request.
#include "comm/comm_impl.hpp"
#include "comm/public_call.hpp"
#include "rcoll/comm.hpp"
#include "rcoll/request.hpp"

namespace rcoll {

using comm::Mode;
using comm::public_call;
using diagnostics::CallKind;

Request Comm::iallreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                         const CallOptions& call) {
  return Request(public_call(impl_, CallKind::allreduce, count, type, [&](comm::CommImpl& c) {
    return c.allreduce(send, recv, count, type, op, call.timeout, Mode::issued);
  }));
}
Request Comm::iallreduce(void* inout, std::size_t count, DataType type, ReduceOp op, const CallOptions& call) {
  return iallreduce(inout, inout, count, type, op, call);
}
Request Comm::ibcast(void* buf, std::size_t count, DataType type, int root, const CallOptions& call) {
  return Request(public_call(impl_, CallKind::bcast, count, type, [&](comm::CommImpl& c) {
    return c.bcast(buf, count, type, root, call.timeout, Mode::issued);
  }));
}
Request Comm::ibarrier(const CallOptions& call) {
  return Request(public_call(impl_, CallKind::barrier, 0, DataType::uint8,
                             [&](comm::CommImpl& c) { return c.barrier(call.timeout, Mode::issued); }));
}
Request Comm::ireduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op, int root,
                      const CallOptions& call) {
  return Request(public_call(impl_, CallKind::reduce, count, type, [&](comm::CommImpl& c) {
    return c.reduce(send, recv, count, type, op, root, call.timeout, Mode::issued);
  }));
}
Request Comm::iallgather(const void* send, void* recv, std::size_t count, DataType type, const CallOptions& call) {
  return Request(public_call(impl_, CallKind::allgather, count, type, [&](comm::CommImpl& c) {
    return c.allgather(send, recv, count, type, call.timeout, Mode::issued);
  }));
}
Request Comm::iallgatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
                          std::span<const std::size_t> displs, DataType type, const CallOptions& call) {
  return Request(public_call(impl_, CallKind::allgatherv, count, type, [&](comm::CommImpl& c) {
    return c.allgatherv(send, count, recv, counts, displs, type, call.timeout, Mode::issued);
  }));
}
Request Comm::ireduce_scatter(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                              const CallOptions& call) {
  return Request(public_call(impl_, CallKind::reduce_scatter, count, type, [&](comm::CommImpl& c) {
    return c.reduce_scatter(send, recv, count, type, op, call.timeout, Mode::issued);
  }));
}
Request Comm::ireduce_scatter_v(const void* send, void* recv, std::span<const std::size_t> counts, DataType type,
                                ReduceOp op, const CallOptions& call) {
  return Request(public_call(impl_, CallKind::reduce_scatter_v, 0, type, [&](comm::CommImpl& c) {
    return c.reduce_scatter_v(send, recv, counts, type, op, call.timeout, Mode::issued);
  }));
}
Request Comm::ialltoall(const void* send, void* recv, std::size_t count, DataType type, const CallOptions& call) {
  return Request(public_call(impl_, CallKind::alltoall, count, type, [&](comm::CommImpl& c) {
    return c.alltoall(send, recv, count, type, call.timeout, Mode::issued);
  }));
}
Request Comm::ialltoallv(const void* send, std::span<const std::size_t> send_counts,
                         std::span<const std::size_t> send_displs, void* recv, std::span<const std::size_t> recv_counts,
                         std::span<const std::size_t> recv_displs, DataType type, const CallOptions& call) {
  return Request(public_call(impl_, CallKind::alltoallv, 0, type, [&](comm::CommImpl& c) {
    return c.alltoallv(send, send_counts, send_displs, recv, recv_counts, recv_displs, type, call.timeout,
                       Mode::issued);
  }));
}
Request Comm::igather(const void* send, void* recv, std::size_t count, DataType type, int root,
                      const CallOptions& call) {
  return Request(public_call(impl_, CallKind::gather, count, type, [&](comm::CommImpl& c) {
    return c.gather(send, recv, count, type, root, call.timeout, Mode::issued);
  }));
}
Request Comm::igatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
                       std::span<const std::size_t> displs, DataType type, int root, const CallOptions& call) {
  return Request(public_call(impl_, CallKind::gatherv, count, type, [&](comm::CommImpl& c) {
    return c.gatherv(send, count, recv, counts, displs, type, root, call.timeout, Mode::issued);
  }));
}
Request Comm::iscatter(const void* send, void* recv, std::size_t count, DataType type, int root,
                       const CallOptions& call) {
  return Request(public_call(impl_, CallKind::scatter, count, type, [&](comm::CommImpl& c) {
    return c.scatter(send, recv, count, type, root, call.timeout, Mode::issued);
  }));
}
Request Comm::iscatterv(const void* send, std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                        void* recv, std::size_t count, DataType type, int root, const CallOptions& call) {
  return Request(public_call(impl_, CallKind::scatterv, count, type, [&](comm::CommImpl& c) {
    return c.scatterv(send, counts, displs, recv, count, type, root, call.timeout, Mode::issued);
  }));
}
Request Comm::isend(const void* buf, std::size_t count, DataType type, int dest, int tag, const CallOptions& call) {
  return Request(public_call(impl_, CallKind::send, count, type, [&](comm::CommImpl& c) {
    return c.isend(buf, count, type, dest, tag, call.timeout);
  }));
}
Request Comm::irecv(void* buf, std::size_t count, DataType type, int source, int tag, const CallOptions& call) {
  return Request(public_call(impl_, CallKind::recv, count, type, [&](comm::CommImpl& c) {
    return c.irecv(buf, count, type, source, tag, call.timeout);
  }));
}

}  // namespace rcoll
