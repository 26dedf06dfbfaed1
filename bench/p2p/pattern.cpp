#include "measure.hpp"

#include <algorithm>

namespace rcoll::bench {
namespace {

std::byte pattern_byte(std::size_t i, std::size_t bytes, int writer) {
  return static_cast<std::byte>(1 + (i * 131 + bytes + static_cast<std::size_t>(writer) * 17) % 251);
}

}  // namespace

void fill_pattern(std::byte* buf, std::size_t bytes, int writer) {
  for (std::size_t i = 0; i < bytes; ++i) buf[i] = pattern_byte(i, bytes, writer);
}

std::uint64_t count_wrong(const std::byte* buf, std::size_t bytes, int writer) {
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < bytes; ++i) wrong += buf[i] == pattern_byte(i, bytes, writer) ? 0 : 1;
  return wrong;
}

}  // namespace rcoll::bench
