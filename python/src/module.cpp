// The extension module rcoll._rcoll, which the package rcoll re-exports
// (python/rcoll/__init__.py): Comm, Request, the reduction operators,
// IN_PLACE and the error classes.
#include <pybind11/pybind11.h>

#include "call_support.hpp"
#include "errors.hpp"
#include "request.hpp"

namespace rcoll::python {
namespace {

// Leaked on purpose, like the error classes: it lives as long as the interpreter.
py::object* in_place_object = nullptr;

}  // namespace

py::handle in_place_sentinel() { return *in_place_object; }

}  // namespace rcoll::python

PYBIND11_MODULE(_rcoll, module) {
  namespace py = pybind11;
  using rcoll::ReduceOp;
  module.doc() = "rcoll: collective communication over RDMA and TCP (the C++ library's Python binding)";
  rcoll::python::register_errors(module);
  py::enum_<ReduceOp>(module, "ReduceOp")
      .value("SUM", ReduceOp::sum)
      .value("PROD", ReduceOp::prod)
      .value("MIN", ReduceOp::min)
      .value("MAX", ReduceOp::max);
  for (const char* op : {"SUM", "PROD", "MIN", "MAX"}) module.attr(op) = module.attr("ReduceOp").attr(op);
  rcoll::python::in_place_object = new py::object(py::module_::import("builtins").attr("object")());
  module.attr("IN_PLACE") = *rcoll::python::in_place_object;
  rcoll::python::bind_request(module);
  rcoll::python::bind_comm(module);
}
