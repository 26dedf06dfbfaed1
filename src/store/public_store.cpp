// rcoll::Store's default try_get (include/rcoll/store.hpp).
#include "rcoll/errors.hpp"
#include "rcoll/store.hpp"

namespace rcoll {

std::optional<std::string> Store::try_get(const std::string& key) {
  try {
    return get(key, Clock::now());
  } catch (const TimeoutError&) {
    return std::nullopt;
  }
}

}  // namespace rcoll
