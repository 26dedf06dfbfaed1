// rcoll.Request: an rcoll::Request and the buffers its call uses. The
// buffers are released only after the call is complete (or abandoned), so
// Python cannot free or resize them while rcoll still writes into them.
#pragma once

#include <pybind11/pybind11.h>

#include <utility>

#include "buffers.hpp"
#include "rcoll/request.hpp"

namespace rcoll::python {

class PyRequest {
 public:
  PyRequest(Request request, Buffers buffers) : buffers_(std::move(buffers)), request_(std::move(request)) {}

  bool active() const noexcept { return request_.active(); }
  // As rcoll::Request's, with the GIL released while they move the call on.
  bool test();
  void wait();
  std::size_t count() const noexcept { return request_.count(); }
  Request& request() noexcept { return request_; }

 private:
  Buffers buffers_;   // declared first: released after the request
  Request request_;
};

void bind_request(pybind11::module_& module);

}  // namespace rcoll::python
