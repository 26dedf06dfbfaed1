// What every binding of a Comm call shares: the timeout argument, the
// IN_PLACE sentinel, size checks, and running a call blocking or issued
// with the GIL released.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "buffers.hpp"
#include "request.hpp"
#include "rcoll/comm.hpp"

namespace rcoll::python {

namespace py = pybind11;

// rcoll.IN_PLACE, made by the module.
py::handle in_place_sentinel();
inline bool is_in_place(const py::handle& object) { return object.is(in_place_sentinel()); }

// "rank R: <call>": how every error of the binding starts, as rcoll's own do.
inline std::string call_label(const Comm& comm, const char* call) {
  return "rank " + std::to_string(comm.rank()) + ": " + call;
}

// `timeout` in seconds (None: the communicator's); ValueError unless positive.
CallOptions call_options(const py::object& timeout, const std::string& call);

// ValueError "<call>: <what>" unless `holds`.
inline void require(bool holds, const std::string& call, const std::string& what) {
  if (!holds) throw py::value_error(call + ": " + what);
}

// Exclusive prefix sums of `counts`: blocks laid out one after another.
std::vector<std::size_t> packed_displacements(const std::vector<std::size_t>& counts);

// The displacements given, or packed ones.
inline std::vector<std::size_t> displacements_or_packed(const std::optional<std::vector<std::size_t>>& displs,
                                                        const std::vector<std::size_t>& counts) {
  return displs ? *displs : packed_displacements(counts);
}

// Runs a call: blocking (returns None) or issued (returns an rcoll.Request
// that keeps `buffers`), with the GIL released while rcoll runs.
template <typename Blocking, typename Issue>
py::object run_call(bool issued, Buffers&& buffers, Blocking&& blocking, Issue&& issue) {
  if (!issued) {
    py::gil_scoped_release release;
    blocking();
    return py::none();
  }
  Request request;
  {
    py::gil_scoped_release release;
    request = issue();
  }
  return py::cast(PyRequest(std::move(request), std::move(buffers)));
}

void bind_comm(py::module_& module);
// The MPI-style set (collective_set_bindings.cpp) on the class bind_comm made.
void bind_collective_set(py::class_<Comm>& comm);

}  // namespace rcoll::python
