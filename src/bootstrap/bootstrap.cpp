#include "bootstrap/bootstrap.hpp"

#include <chrono>

#include "rcoll/errors.hpp"

namespace rcoll::bootstrap {

// Default: a get that gives up at once. Implementations may answer faster.
std::optional<std::string> Bootstrap::try_get(const std::string& key) {
  try {
    return get(key, Deadline::after(std::chrono::milliseconds(0)));
  } catch (const TimeoutError&) {
    return std::nullopt;
  }
}

}  // namespace rcoll::bootstrap
