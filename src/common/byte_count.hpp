// Byte counts as users write them in environment variables: a decimal
// number with an optional K, M or G suffix (powers of 1024), e.g. 8192, 64K.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace rcoll {

// The count, or nullopt when `text` is not such a number (or overflows).
std::optional<std::size_t> parse_byte_count(std::string_view text) noexcept;

}  // namespace rcoll
