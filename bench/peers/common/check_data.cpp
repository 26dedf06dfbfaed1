#include "common/check_data.hpp"

#include <algorithm>
#include <cstdint>

namespace rcoll::peers {
namespace {

// rcoll-bench's pattern period (7 * 11).
constexpr std::size_t kPeriod = 77;
// Largest integer float32 holds exactly (and sums of it, below 2^24).
constexpr std::int64_t kFloatExact = std::int64_t{1} << 24;

std::int64_t sum_input(int rank, int size, std::size_t j) {
  const std::int64_t bound = std::clamp<std::int64_t>(kFloatExact / size, 1, 7);
  return (static_cast<std::int64_t>(rank + 1) * static_cast<std::int64_t>(j % 7 + 1)) % bound + 1;
}

std::int64_t bcast_input(int root, std::size_t j) {
  return static_cast<std::int64_t>((j * 3 + static_cast<std::size_t>(root) * 7) % 97) + 1;
}

std::size_t mismatches(const std::vector<float>& period, const float* buf, std::size_t count) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) wrong += buf[i] == period[i % period.size()] ? 0 : 1;
  return wrong;
}

}  // namespace

CheckData::CheckData(const PeerOptions& options, int rank, int size) : input_(kPeriod), expected_(kPeriod) {
  for (std::size_t j = 0; j < kPeriod; ++j) {
    if (options.op == PeerOp::bcast) {
      expected_[j] = static_cast<float>(bcast_input(options.root, j));
      input_[j] = rank == options.root ? expected_[j] : 0.0f;
      continue;
    }
    std::int64_t total = 0;
    for (int r = 0; r < size; ++r) total += sum_input(r, size, j);
    input_[j] = static_cast<float>(sum_input(rank, size, j));
    expected_[j] = static_cast<float>(total);
  }
}

void CheckData::fill_input(float* buf, std::size_t count) const {
  for (std::size_t i = 0; i < count; ++i) buf[i] = input_[i % kPeriod];
}

void CheckData::fill_sentinel(float* buf, std::size_t count) { std::fill(buf, buf + count, 0.0f); }

std::size_t CheckData::count_errors(const float* buf, std::size_t count) const {
  return mismatches(expected_, buf, count);
}

std::size_t CheckData::count_changed_input(const float* buf, std::size_t count) const {
  return mismatches(input_, buf, count);
}

}  // namespace rcoll::peers
