#include "bootstrap/bootstrap.hpp"

#include <chrono>

#include "bootstrap/messages.hpp"
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

std::optional<std::string> Bootstrap::departure(int rank) { return try_get(wire::departed_key(rank)); }

}  // namespace rcoll::bootstrap
