// rcoll.Comm: creation, the first calls (allreduce, bcast, barrier, point
// to point), split and dup. Counts and types come from the buffers.
#include <pybind11/stl.h>

#include <string>

#include "call_support.hpp"

namespace rcoll::python {
namespace {

py::object allreduce(Comm& comm, bool issued, const py::object& send, const py::object& recv, ReduceOp op,
                     const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "iallreduce" : "allreduce");
  Buffers buffers;
  const BufferView in = buffers.view(send, name, "send", recv.is_none());
  BufferView out = in;
  if (!recv.is_none()) {
    out = buffers.view(recv, name, "recv", true);
    require(out.type == in.type && out.count == in.count, name,
            "recv must have send's element type and length (" + std::to_string(in.count) + " elements)");
  }
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.allreduce(in.data, out.data, in.count, in.type, op, call); },
      [&] { return comm.iallreduce(in.data, out.data, in.count, in.type, op, call); });
}

py::object bcast(Comm& comm, bool issued, const py::object& buf, int root, const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "ibcast" : "bcast");
  Buffers buffers;
  const BufferView b = buffers.view(buf, name, "buf", true);
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.bcast(b.data, b.count, b.type, root, call); },
      [&] { return comm.ibcast(b.data, b.count, b.type, root, call); });
}

py::object barrier(Comm& comm, bool issued, const py::object& timeout) {
  const CallOptions call = call_options(timeout, call_label(comm, issued ? "ibarrier" : "barrier"));
  return run_call(
      issued, Buffers(), [&] { comm.barrier(call); }, [&] { return comm.ibarrier(call); });
}

py::object send(Comm& comm, bool issued, const py::object& buf, int dest, int tag, const py::object& timeout) {
  const std::string name = call_label(comm, issued ? "isend" : "send");
  Buffers buffers;
  const BufferView b = buffers.view(buf, name, "buf", false);
  const CallOptions call = call_options(timeout, name);
  return run_call(
      issued, std::move(buffers), [&] { comm.send(b.data, b.count, b.type, dest, tag, call); },
      [&] { return comm.isend(b.data, b.count, b.type, dest, tag, call); });
}

std::size_t recv(Comm& comm, const py::object& buf, int source, int tag, const py::object& timeout) {
  const std::string name = call_label(comm, "recv");
  Buffers buffers;
  const BufferView b = buffers.view(buf, name, "buf", true);
  const CallOptions call = call_options(timeout, name);
  py::gil_scoped_release release;
  return comm.recv(b.data, b.count, b.type, source, tag, call);
}

py::object irecv(Comm& comm, const py::object& buf, int source, int tag, const py::object& timeout) {
  const std::string name = call_label(comm, "irecv");
  Buffers buffers;
  const BufferView b = buffers.view(buf, name, "buf", true);
  const CallOptions call = call_options(timeout, name);
  return run_call(
      true, std::move(buffers), [] {}, [&] { return comm.irecv(b.data, b.count, b.type, source, tag, call); });
}

// Comm::split and dup with the GIL released (they communicate).
Comm split(Comm& comm, int color, int key, const py::object& timeout) {
  const CallOptions call = call_options(timeout, call_label(comm, "split"));
  py::gil_scoped_release release;
  return comm.split(color, key, call);
}

}  // namespace

void bind_comm(py::module_& module) {
  const auto none = py::none();
  py::class_<Comm> comm(module, "Comm",
                        "A group of ranks that run collectives together (rcoll::Comm). Buffers are any "
                        "C-contiguous objects with the buffer protocol; counts and types come from them. Every "
                        "call releases the GIL while it runs; timeout= is in seconds.");
  comm.def_static(
          "from_env", [] { return Comm::from_env(); },
          "The communicator of a launched job (rcoll-run, torchrun, Slurm, mpirun environments).")
      .def_property_readonly("rank", &Comm::rank)
      .def_property_readonly("size", &Comm::size)
      .def_property_readonly("transport", &Comm::transport_name)
      .def_property_readonly("valid", &Comm::valid, "False for the result of split() with a negative color.")
      .def("describe_plan", &Comm::describe_plan)
      .def("allreduce", [](Comm& c, const py::object& send, const py::object& recv, ReduceOp op,
                           const py::object& timeout) { return allreduce(c, false, send, recv, op, timeout); },
           py::arg("send"), py::arg("recv") = none, py::arg("op") = ReduceOp::sum, py::arg("timeout") = none,
           "recv = op over all ranks of send; without recv, in place in send.")
      .def("iallreduce", [](Comm& c, const py::object& send, const py::object& recv, ReduceOp op,
                            const py::object& timeout) { return allreduce(c, true, send, recv, op, timeout); },
           py::arg("send"), py::arg("recv") = none, py::arg("op") = ReduceOp::sum, py::arg("timeout") = none)
      .def("bcast", [](Comm& c, const py::object& buf, int root,
                       const py::object& timeout) { return bcast(c, false, buf, root, timeout); },
           py::arg("buf"), py::arg("root") = 0, py::arg("timeout") = none)
      .def("ibcast", [](Comm& c, const py::object& buf, int root,
                        const py::object& timeout) { return bcast(c, true, buf, root, timeout); },
           py::arg("buf"), py::arg("root") = 0, py::arg("timeout") = none)
      .def("barrier", [](Comm& c, const py::object& timeout) { return barrier(c, false, timeout); },
           py::arg("timeout") = none)
      .def("ibarrier", [](Comm& c, const py::object& timeout) { return barrier(c, true, timeout); },
           py::arg("timeout") = none)
      .def("send", [](Comm& c, const py::object& buf, int dest, int tag,
                      const py::object& timeout) { return send(c, false, buf, dest, tag, timeout); },
           py::arg("buf"), py::arg("dest"), py::arg("tag") = 0, py::arg("timeout") = none)
      .def("isend", [](Comm& c, const py::object& buf, int dest, int tag,
                       const py::object& timeout) { return send(c, true, buf, dest, tag, timeout); },
           py::arg("buf"), py::arg("dest"), py::arg("tag") = 0, py::arg("timeout") = none)
      .def("recv", &recv, py::arg("buf"), py::arg("source"), py::arg("tag") = 0, py::arg("timeout") = none,
           "Receives at most len(buf) elements; returns how many came.")
      .def("irecv", &irecv, py::arg("buf"), py::arg("source"), py::arg("tag") = 0, py::arg("timeout") = none)
      .def("split", &split, py::arg("color"), py::arg("key") = 0, py::arg("timeout") = none,
           "MPI_Comm_split: ranks of one color form a new communicator, ranked by (key, rank); a negative "
           "color gives one whose valid is False.")
      .def("dup",
           [](Comm& c, const py::object& timeout) {
             const CallOptions call = call_options(timeout, call_label(c, "dup"));
             py::gil_scoped_release release;
             return c.dup(call);
           },
           py::arg("timeout") = none)
      .def("abort", &Comm::abort, py::arg("reason"),
           "Ends this process at once and makes every rank's next wait fail naming the reason.");
  bind_collective_set(comm);
}

}  // namespace rcoll::python
