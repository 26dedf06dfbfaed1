// The extension module rcoll._torch: the process group class that
// rcoll/torch.py registers with torch.distributed as backend "rcoll".
//
// It binds against torch's own pybind11 registrations (c10d.ProcessGroup,
// c10d.Store, the c10::intrusive_ptr holder): torch.distributed is
// imported first, and torch and this module are built with the same
// pybind11 (Debian's), so the types are shared.
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>

#include "process_group.hpp"

namespace py = pybind11;
using rcoll::torch_backend::ProcessGroupRcoll;

PYBIND11_MODULE(_torch, m) {
  py::module_::import("torch.distributed");
  m.doc() = "rcoll's torch.distributed backend (import rcoll.torch to register it)";
  py::class_<ProcessGroupRcoll, c10d::ProcessGroup, c10::intrusive_ptr<ProcessGroupRcoll>>(m, "ProcessGroupRcoll")
      .def(py::init(&ProcessGroupRcoll::create_world), py::arg("store"), py::arg("rank"), py::arg("size"),
           py::arg("timeout"), py::call_guard<py::gil_scoped_release>(),
           "The world group: joins through `store` (torch's), no rcoll service.")
      .def("_create_group", &ProcessGroupRcoll::create_group, py::arg("store"), py::arg("ranks"), py::arg("timeout"),
           py::call_guard<py::gil_scoped_release>(),
           "A group of `ranks` (ranks of this group) on this group's connections; only its members call it.")
      .def_property_readonly("transport", &ProcessGroupRcoll::transport, "\"tcp\" or \"rdma\"");
}
