#include "errors.hpp"

#include <pybind11/stl.h>

#include <string>

#include "rcoll/errors.hpp"

namespace rcoll::python {
namespace {

namespace py = pybind11;

struct Classes {
  py::object error, invalid_argument, mismatch, message, timeout, io, resource;
};

// Leaked on purpose: the classes live as long as the interpreter, and a
// static py::object would be released after it has finalised.
Classes& classes() {
  static auto* all = new Classes();
  return *all;
}

py::object make_class(py::module_& module, const char* name, py::tuple bases, const char* doc) {
  const std::string qualified = std::string("rcoll.") + name;
  py::object cls = py::reinterpret_steal<py::object>(
      PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr));
  if (!cls) throw py::error_already_set();
  module.attr(name) = cls;
  return cls;
}

// Raises an instance of `cls` with `what` and the attributes `set` gives it.
template <typename Set>
void raise(const py::object& cls, const char* what, Set&& set) {
  py::object instance = cls(what);
  set(instance);
  PyErr_SetObject(cls.ptr(), instance.ptr());
}

void translate(std::exception_ptr error) {
  if (!error) return;
  const Classes& c = classes();
  auto nothing = [](py::object&) {};
  try {
    std::rethrow_exception(error);
  } catch (const MismatchError& e) {
    raise(c.mismatch, e.what(), [&](py::object& x) { x.attr("ranks") = py::cast(e.ranks()); });
  } catch (const InvalidArgument& e) {
    raise(c.invalid_argument, e.what(), nothing);
  } catch (const MessageError& e) {
    raise(c.message, e.what(), [&](py::object& x) {
      x.attr("rank") = e.rank();
      x.attr("peer") = e.peer();
      x.attr("bytes") = e.bytes();
      x.attr("capacity") = e.capacity();
    });
  } catch (const TimeoutError& e) {
    raise(c.timeout, e.what(), [&](py::object& x) {
      x.attr("waiting_for") = py::cast(e.waiting_for());
      x.attr("not_joined") = py::cast(e.not_joined());
    });
  } catch (const IoError& e) {
    raise(c.io, e.what(), [&](py::object& x) {
      x.attr("rank") = e.rank();
      x.attr("peer") = e.peer();
      x.attr("step") = e.step();
      x.attr("cause") = e.cause();
    });
  } catch (const ResourceError& e) {
    raise(c.resource, e.what(), nothing);
  } catch (const Error& e) {
    raise(c.error, e.what(), nothing);
  }
}

}  // namespace

void register_errors(py::module_& module) {
  Classes& c = classes();
  const py::module_ builtins = py::module_::import("builtins");
  c.error = make_class(module, "Error", py::make_tuple(builtins.attr("RuntimeError")), "Any error rcoll raises.");
  c.invalid_argument = make_class(module, "InvalidArgument", py::make_tuple(c.error, builtins.attr("ValueError")),
                                  "A call's arguments cannot work; nothing was sent, the communicator is usable.");
  c.mismatch = make_class(module, "MismatchError", py::make_tuple(c.invalid_argument),
                          "RCOLL_CHECK=1 found that the ranks' calls differ (.ranks: those that differ).");
  c.message = make_class(module, "MessageError", py::make_tuple(c.error),
                         "A received message did not fit its buffer; the communicator is usable.");
  c.timeout = make_class(module, "TimeoutError", py::make_tuple(c.error, builtins.attr("TimeoutError")),
                         "A call ran out of time (.waiting_for, .not_joined); the communicator is unusable.");
  c.io = make_class(module, "IoError", py::make_tuple(c.error),
                    "A peer or the network failed (.rank, .peer, .step, .cause); the communicator is unusable.");
  c.resource = make_class(module, "ResourceError", py::make_tuple(c.error, builtins.attr("MemoryError")),
                          "Memory ran out inside a call.");
  py::register_exception_translator(translate);
}

}  // namespace rcoll::python
