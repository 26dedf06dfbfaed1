// A receive buffer with guard bytes on both sides, for the collectives
// suites: a schedule that writes outside the buffer it was given changes
// a guard, which intact() reports.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

namespace rcoll::test {

class GuardedBuffer {
 public:
  static constexpr std::size_t guard = 64;
  static constexpr std::byte fill{0xab};

  // `bytes` of fill between the guards, or `content` when given.
  explicit GuardedBuffer(std::size_t bytes) : storage_(bytes + 2 * guard, fill), bytes_(bytes) {}
  explicit GuardedBuffer(std::span<const std::byte> content) : GuardedBuffer(content.size()) {
    std::copy(content.begin(), content.end(), data());
  }

  std::byte* data() noexcept { return storage_.data() + guard; }
  std::size_t size() const noexcept { return bytes_; }
  // The first `bytes` of the buffer.
  std::vector<std::byte> head(std::size_t bytes) const {
    return {storage_.begin() + guard, storage_.begin() + static_cast<std::ptrdiff_t>(guard + bytes)};
  }
  bool intact() const {
    auto is_fill = [](std::byte b) { return b == fill; };
    return std::all_of(storage_.begin(), storage_.begin() + guard, is_fill) &&
           std::all_of(storage_.end() - guard, storage_.end(), is_fill);
  }

 private:
  std::vector<std::byte> storage_;
  std::size_t bytes_;
};

}  // namespace rcoll::test
