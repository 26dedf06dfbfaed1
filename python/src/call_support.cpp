#include "call_support.hpp"

#include <chrono>
#include <cmath>

namespace rcoll::python {

CallOptions call_options(const py::object& timeout, const std::string& call) {
  CallOptions options;
  if (timeout.is_none()) return options;
  const double seconds = timeout.cast<double>();
  require(std::isfinite(seconds) && seconds > 0 && seconds <= 1e7, call,
          "timeout must be a positive number of seconds, not " + std::string(py::repr(timeout)));
  options.timeout = std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000.0)));
  return options;
}

std::vector<std::size_t> packed_displacements(const std::vector<std::size_t>& counts) {
  std::vector<std::size_t> displs(counts.size());
  std::size_t at = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = at;
    at += counts[r];
  }
  return displs;
}

}  // namespace rcoll::python
