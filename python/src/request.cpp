#include "request.hpp"

#include <vector>

namespace rcoll::python {

namespace py = pybind11;

bool PyRequest::test() {
  py::gil_scoped_release release;
  return request_.test();
}

void PyRequest::wait() {
  py::gil_scoped_release release;
  request_.wait();
}

namespace {

// rcoll::wait_any over the requests of `requests` (a sequence of
// rcoll.Request): they are moved into one array for the call and back.
std::size_t wait_any(const py::sequence& requests) {
  std::vector<PyRequest*> owners;
  for (const py::handle item : requests) owners.push_back(item.cast<PyRequest*>());
  std::vector<Request> all;
  for (PyRequest* owner : owners) all.push_back(std::move(owner->request()));
  std::size_t found = all.size();
  std::exception_ptr error;
  {
    py::gil_scoped_release release;
    try {
      found = rcoll::wait_any(all);
    } catch (...) {
      error = std::current_exception();
    }
  }
  for (std::size_t i = 0; i < owners.size(); ++i) owners[i]->request() = std::move(all[i]);
  if (error) std::rethrow_exception(error);
  return found;
}

// Waits for each in order (also after one failed), then raises the first error.
void wait_all(const py::sequence& requests) {
  std::exception_ptr first;
  for (const py::handle item : requests) {
    try {
      item.cast<PyRequest*>()->wait();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace

void bind_request(py::module_& module) {
  py::class_<PyRequest>(module, "Request",
                        "A non-blocking call in flight (what Comm's i-calls return). It keeps the call's buffers "
                        "alive until the call completes. Dropping an active request whose call has not finished "
                        "breaks the communicator (its peers fail at once).")
      .def_property_readonly("active", &PyRequest::active, "True until test() returned True or wait() returned.")
      .def("test", &PyRequest::test, "Moves the call on without blocking; True once it is complete.")
      .def("wait", &PyRequest::wait, "Returns once the call is complete; raises its error.")
      .def_property_readonly("count", &PyRequest::count, "For a completed irecv: the elements received.");
  module.def("wait_all", &wait_all, py::arg("requests"),
             "Waits for every request, then raises the first error met.");
  module.def("wait_any", &wait_any, py::arg("requests"),
             "Waits until one active request completes; returns its index (len(requests) if none is active).");
}

}  // namespace rcoll::python
