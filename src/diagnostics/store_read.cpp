#include "diagnostics/store_read.hpp"

#include <exception>

#include "common/log.hpp"

namespace rcoll::diagnostics {

std::optional<std::string> read_quietly(store::Store& store, const std::string& key, std::string_view who) noexcept {
  try {
    return store.try_get(key);
  } catch (const std::exception& e) {
    log::debug("{}: cannot read {}: {}", who, key, e.what());
    return std::nullopt;
  }
}

}  // namespace rcoll::diagnostics
