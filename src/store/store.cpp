#include "store/store.hpp"

#include <chrono>

#include "rcoll/errors.hpp"

namespace rcoll::store {

std::optional<std::string> Store::try_get(const std::string& key) {
  try {
    return get(key, Deadline::after(std::chrono::milliseconds(0)));
  } catch (const TimeoutError&) {
    return std::nullopt;
  }
}

void Store::wait(const std::vector<std::string>& keys, Deadline deadline) {
  for (const auto& key : keys) get(key, deadline);
}

}  // namespace rcoll::store
