// rcoll.Comm's MPI-style set: reduce, allgather(v), reduce_scatter(_v),
// alltoall(v), gather(v), scatter(v), each also as an i-call. Counts come
// from the buffers: a block is a buffer's length over size() where the C++
// call takes a per-rank count. rcoll.IN_PLACE stands for C++'s in_place.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "call_support.hpp"

namespace rcoll::python {
namespace {

using Counts = std::vector<std::size_t>;
using OptionalCounts = std::optional<Counts>;

// `total` elements as `parts` equal blocks; ValueError when they are not.
std::size_t block_of(std::size_t total, int parts, const std::string& call, const char* what) {
  require(total % static_cast<std::size_t>(parts) == 0, call,
          std::string(what) + " has " + std::to_string(total) + " elements, not a multiple of the " +
              std::to_string(parts) + " ranks");
  return total / static_cast<std::size_t>(parts);
}

void require_type(const BufferView& a, const BufferView& b, const std::string& call) {
  require(a.type == b.type, call, "send and recv must have one element type");
}

py::object reduce(Comm& comm, bool issued, const py::object& send, const py::object& recv, ReduceOp op, int root,
                  const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "ireduce" : "reduce");
  Buffers buffers;
  const bool root_in_place = comm.rank() == root && recv.is_none();
  const BufferView in = buffers.view(send, name, "send", root_in_place);
  void* out = root_in_place ? in.data : nullptr;
  if (comm.rank() == root && !recv.is_none()) {
    const BufferView r = buffers.view(recv, name, "recv", true);
    require_type(in, r, name);
    require(r.count == in.count, name, "the root's recv must have send's length");
    out = r.data;
  }
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.reduce(in.data, out, in.count, in.type, op, root, call); },
      [&] { return comm.ireduce(in.data, out, in.count, in.type, op, root, call); });
}

py::object allgather(Comm& comm, bool issued, const py::object& send, const py::object& recv,
                     const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "iallgather" : "allgather");
  Buffers buffers;
  const BufferView out = buffers.view(recv, name, "recv", true);
  const std::size_t count = block_of(out.count, comm.size(), name, "recv");
  const void* in = in_place;
  if (!is_in_place(send)) {
    const BufferView s = buffers.view(send, name, "send", false);
    require_type(s, out, name);
    require(s.count == count, name, "recv must hold size() blocks of send's length");
    in = s.data;
  }
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.allgather(in, out.data, count, out.type, call); },
      [&] { return comm.iallgather(in, out.data, count, out.type, call); });
}

py::object allgatherv(Comm& comm, bool issued, const py::object& send, const py::object& recv, const Counts& counts,
                      const OptionalCounts& displs, const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "iallgatherv" : "allgatherv");
  require(counts.size() == static_cast<std::size_t>(comm.size()), name, "counts must have size() entries");
  Buffers buffers;
  const BufferView out = buffers.view(recv, name, "recv", true);
  const std::size_t count = counts[static_cast<std::size_t>(comm.rank())];
  const void* in = in_place;
  if (!is_in_place(send)) {
    const BufferView s = buffers.view(send, name, "send", false);
    require_type(s, out, name);
    require(s.count == count, name, "send must have counts[rank] elements");
    in = s.data;
  }
  const Counts at = displacements_or_packed(displs, counts);
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.allgatherv(in, count, out.data, counts, at, out.type, call); },
      [&] { return comm.iallgatherv(in, count, out.data, counts, at, out.type, call); });
}

py::object reduce_scatter(Comm& comm, bool issued, const py::object& send, const py::object& recv, ReduceOp op,
                          const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "ireduce_scatter" : "reduce_scatter");
  Buffers buffers;
  const BufferView out = buffers.view(recv, name, "recv", true);
  std::size_t count = out.count;
  const void* in = in_place;
  if (is_in_place(send)) {
    count = block_of(out.count, comm.size(), name, "recv (in place: the input)");
  } else {
    const BufferView s = buffers.view(send, name, "send", false);
    require_type(s, out, name);
    require(s.count == count * static_cast<std::size_t>(comm.size()), name,
            "send must hold size() blocks of recv's length");
    in = s.data;
  }
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.reduce_scatter(in, out.data, count, out.type, op, call); },
      [&] { return comm.ireduce_scatter(in, out.data, count, out.type, op, call); });
}

py::object reduce_scatter_v(Comm& comm, bool issued, const py::object& send, const py::object& recv,
                            const Counts& counts, ReduceOp op, const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "ireduce_scatter_v" : "reduce_scatter_v");
  require(counts.size() == static_cast<std::size_t>(comm.size()), name, "counts must have size() entries");
  Buffers buffers;
  const BufferView s = buffers.view(send, name, "send", false);
  const BufferView out = buffers.view(recv, name, "recv", true);
  require_type(s, out, name);
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  require(s.count == total, name, "send must hold the sum of counts");
  require(out.count >= counts[static_cast<std::size_t>(comm.rank())], name, "recv must hold counts[rank]");
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.reduce_scatter_v(s.data, out.data, counts, out.type, op, call); },
      [&] { return comm.ireduce_scatter_v(s.data, out.data, counts, out.type, op, call); });
}

py::object alltoall(Comm& comm, bool issued, const py::object& send, const py::object& recv,
                    const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "ialltoall" : "alltoall");
  Buffers buffers;
  const BufferView s = buffers.view(send, name, "send", false);
  const BufferView out = buffers.view(recv, name, "recv", true);
  require_type(s, out, name);
  require(s.count == out.count, name, "send and recv must have one length");
  const std::size_t count = block_of(s.count, comm.size(), name, "send");
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.alltoall(s.data, out.data, count, out.type, call); },
      [&] { return comm.ialltoall(s.data, out.data, count, out.type, call); });
}

py::object alltoallv(Comm& comm, bool issued, const py::object& send, const Counts& send_counts,
                     const OptionalCounts& send_displs, const py::object& recv, const Counts& recv_counts,
                     const OptionalCounts& recv_displs, const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "ialltoallv" : "alltoallv");
  Buffers buffers;
  const BufferView s = buffers.view(send, name, "send", false);
  const BufferView out = buffers.view(recv, name, "recv", true);
  require_type(s, out, name);
  const Counts sd = displacements_or_packed(send_displs, send_counts);
  const Counts rd = displacements_or_packed(recv_displs, recv_counts);
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers),
      [&] { comm.alltoallv(s.data, send_counts, sd, out.data, recv_counts, rd, out.type, call); },
      [&] { return comm.ialltoallv(s.data, send_counts, sd, out.data, recv_counts, rd, out.type, call); });
}

// gather's and scatter's side of the root: the whole buffer (recv of a
// gather, send of a scatter), or none elsewhere.
py::object gather(Comm& comm, bool issued, const py::object& send, const py::object& recv, int root,
                  const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "igather" : "gather");
  Buffers buffers;
  const bool at_root = comm.rank() == root;
  BufferView all{};
  if (at_root) all = buffers.view(recv, name, "recv", true);
  std::size_t count = 0;
  const void* in = in_place;
  DataType type = all.type;
  if (at_root && is_in_place(send)) {
    count = block_of(all.count, comm.size(), name, "recv");
  } else {
    const BufferView s = buffers.view(send, name, "send", false);
    if (at_root) {
      require_type(s, all, name);
      require(all.count == s.count * static_cast<std::size_t>(comm.size()), name,
              "the root's recv must hold size() blocks of send's length");
    }
    count = s.count;
    type = s.type;
    in = s.data;
  }
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.gather(in, all.data, count, type, root, call); },
      [&] { return comm.igather(in, all.data, count, type, root, call); });
}

py::object gatherv(Comm& comm, bool issued, const py::object& send, const py::object& recv,
                   const OptionalCounts& counts, const OptionalCounts& displs, int root, const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "igatherv" : "gatherv");
  Buffers buffers;
  const BufferView s = buffers.view(send, name, "send", false);
  BufferView all{};
  Counts c, d;
  if (comm.rank() == root) {
    require(counts.has_value(), name, "the root needs counts");
    all = buffers.view(recv, name, "recv", true);
    require_type(s, all, name);
    c = *counts;
    d = displacements_or_packed(displs, c);
  }
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.gatherv(s.data, s.count, all.data, c, d, s.type, root, call); },
      [&] { return comm.igatherv(s.data, s.count, all.data, c, d, s.type, root, call); });
}

py::object scatter(Comm& comm, bool issued, const py::object& send, const py::object& recv, int root,
                   const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "iscatter" : "scatter");
  Buffers buffers;
  const bool at_root = comm.rank() == root;
  BufferView all{};
  if (at_root) all = buffers.view(send, name, "send", false);
  std::size_t count = 0;
  void* out = const_cast<void*>(in_place);
  DataType type = all.type;
  if (at_root && is_in_place(recv)) {
    count = block_of(all.count, comm.size(), name, "send");
  } else {
    const BufferView r = buffers.view(recv, name, "recv", true);
    if (at_root) {
      require_type(all, r, name);
      require(all.count == r.count * static_cast<std::size_t>(comm.size()), name,
              "the root's send must hold size() blocks of recv's length");
    }
    count = r.count;
    type = r.type;
    out = r.data;
  }
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.scatter(all.data, out, count, type, root, call); },
      [&] { return comm.iscatter(all.data, out, count, type, root, call); });
}

py::object scatterv(Comm& comm, bool issued, const py::object& send, const OptionalCounts& counts,
                    const OptionalCounts& displs, const py::object& recv, int root, const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "iscatterv" : "scatterv");
  Buffers buffers;
  const BufferView r = buffers.view(recv, name, "recv", true);
  BufferView all{};
  Counts c, d;
  if (comm.rank() == root) {
    require(counts.has_value(), name, "the root needs counts");
    all = buffers.view(send, name, "send", false);
    require_type(all, r, name);
    c = *counts;
    d = displacements_or_packed(displs, c);
  }
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.scatterv(all.data, c, d, r.data, r.count, r.type, root, call); },
      [&] { return comm.iscatterv(all.data, c, d, r.data, r.count, r.type, root, call); });
}

}  // namespace

void bind_collective_set(py::class_<Comm>& comm) {
  const auto none = py::none();
  using py::arg;
  for (const bool issued : {false, true}) {
    auto name = [issued](const char* base) { return issued ? ("i" + std::string(base)) : std::string(base); };
    comm.def(name("reduce").c_str(),
             [issued](Comm& c, const py::object& send, const py::object& recv, ReduceOp op, int root,
                      const py::object& timeout) { return reduce(c, issued, send, recv, op, root, timeout); },
             arg("send"), arg("recv") = none, arg("op") = ReduceOp::sum, arg("root") = 0, arg("timeout") = none,
             "The root's recv = op over all ranks of send; at the root without recv, in place in send.");
    comm.def(name("allgather").c_str(),
             [issued](Comm& c, const py::object& send, const py::object& recv, const py::object& timeout) {
               return allgather(c, issued, send, recv, timeout);
             },
             arg("send"), arg("recv"), arg("timeout") = none,
             "recv = every rank's send in rank order; send=IN_PLACE: this rank's block is already in recv.");
    comm.def(name("allgatherv").c_str(),
             [issued](Comm& c, const py::object& send, const py::object& recv, const Counts& counts,
                      const OptionalCounts& displs, const py::object& timeout) {
               return allgatherv(c, issued, send, recv, counts, displs, timeout);
             },
             arg("send"), arg("recv"), arg("counts"), arg("displs") = none, arg("timeout") = none,
             "Rank r's send (counts[r] elements) lands at displs[r] of recv (default: packed).");
    comm.def(name("reduce_scatter").c_str(),
             [issued](Comm& c, const py::object& send, const py::object& recv, ReduceOp op,
                      const py::object& timeout) { return reduce_scatter(c, issued, send, recv, op, timeout); },
             arg("send"), arg("recv"), arg("op") = ReduceOp::sum, arg("timeout") = none,
             "recv = op over all ranks of block rank of send; send=IN_PLACE: recv holds the input and the "
             "result is left in its first block.");
    comm.def(name("reduce_scatter_v").c_str(),
             [issued](Comm& c, const py::object& send, const py::object& recv, const Counts& counts, ReduceOp op,
                      const py::object& timeout) {
               return reduce_scatter_v(c, issued, send, recv, counts, op, timeout);
             },
             arg("send"), arg("recv"), arg("counts"), arg("op") = ReduceOp::sum, arg("timeout") = none);
    comm.def(name("alltoall").c_str(),
             [issued](Comm& c, const py::object& send, const py::object& recv, const py::object& timeout) {
               return alltoall(c, issued, send, recv, timeout);
             },
             arg("send"), arg("recv"), arg("timeout") = none,
             "Block r of send goes to rank r; block q of recv comes from rank q.");
    comm.def(name("alltoallv").c_str(),
             [issued](Comm& c, const py::object& send, const Counts& send_counts, const OptionalCounts& send_displs,
                      const py::object& recv, const Counts& recv_counts, const OptionalCounts& recv_displs,
                      const py::object& timeout) {
               return alltoallv(c, issued, send, send_counts, send_displs, recv, recv_counts, recv_displs, timeout);
             },
             arg("send"), arg("send_counts"), arg("send_displs") = none, arg("recv") = none,
             arg("recv_counts") = Counts{}, arg("recv_displs") = none, arg("timeout") = none);
    comm.def(name("gather").c_str(),
             [issued](Comm& c, const py::object& send, const py::object& recv, int root,
                      const py::object& timeout) { return gather(c, issued, send, recv, root, timeout); },
             arg("send"), arg("recv") = none, arg("root") = 0, arg("timeout") = none,
             "The root's recv = every rank's send in rank order (recv is ignored elsewhere); send=IN_PLACE at "
             "the root: its block is already in recv.");
    comm.def(name("gatherv").c_str(),
             [issued](Comm& c, const py::object& send, const py::object& recv, const OptionalCounts& counts,
                      const OptionalCounts& displs, int root, const py::object& timeout) {
               return gatherv(c, issued, send, recv, counts, displs, root, timeout);
             },
             arg("send"), arg("recv") = none, arg("counts") = none, arg("displs") = none, arg("root") = 0,
             arg("timeout") = none);
    comm.def(name("scatter").c_str(),
             [issued](Comm& c, const py::object& send, const py::object& recv, int root,
                      const py::object& timeout) { return scatter(c, issued, send, recv, root, timeout); },
             arg("send"), arg("recv"), arg("root") = 0, arg("timeout") = none,
             "Block r of the root's send lands in rank r's recv (send is ignored elsewhere); recv=IN_PLACE at "
             "the root: its block stays in send.");
    comm.def(name("scatterv").c_str(),
             [issued](Comm& c, const py::object& send, const OptionalCounts& counts, const OptionalCounts& displs,
                      const py::object& recv, int root, const py::object& timeout) {
               return scatterv(c, issued, send, counts, displs, recv, root, timeout);
             },
             arg("send"), arg("counts") = none, arg("displs") = none, arg("recv") = none, arg("root") = 0,
             arg("timeout") = none);
  }
}

}  // namespace rcoll::python
