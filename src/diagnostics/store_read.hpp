// Reading the store for a diagnosis, which must never add an error of its
// own: a key that cannot be read counts as not (yet) published.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "store/store.hpp"

namespace rcoll::diagnostics {

// The value under `key`, or nullopt when it is missing or the store cannot
// be read (logged at debug level, prefixed by `who`).
std::optional<std::string> read_quietly(store::Store& store, const std::string& key, std::string_view who) noexcept;

}  // namespace rcoll::diagnostics
