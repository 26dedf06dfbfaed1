// Job tokens: the shared secret every rank presents to the bootstrap
// service and to its peers' transports.
#pragma once

#include <string_view>

namespace rcoll {

// Compares without an early exit, so the time taken does not reveal how
// many leading bytes of a guessed token were right (only whether the
// lengths differ, which the comparison cannot hide cheaply and which
// tells an attacker nothing about the bytes).
bool same_token(std::string_view a, std::string_view b) noexcept;

}  // namespace rcoll
