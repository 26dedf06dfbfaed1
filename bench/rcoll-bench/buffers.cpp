#include "buffers.hpp"

#include <algorithm>

#include "element.hpp"

namespace rcoll::bench {
namespace {

// 7 * 11: long enough that neighbouring elements differ, short enough
// that the expected values are computed once.
constexpr std::size_t kPeriod = 77;

std::int64_t fold(ReduceOp op, std::int64_t a, std::int64_t b) {
  switch (op) {
    case ReduceOp::sum: return a + b;
    case ReduceOp::prod: return a * b;
    case ReduceOp::min: return std::min(a, b);
    case ReduceOp::max: return std::max(a, b);
  }
  return a;
}

template <typename T>
std::vector<T> to_type(const std::vector<std::int64_t>& values) {
  std::vector<T> out(values.size());
  std::transform(values.begin(), values.end(), out.begin(), from_int<T>);
  return out;
}

void tile(DataType type, const std::vector<std::int64_t>& period, void* buf, std::size_t count) {
  visit_dtype(type, [&]<typename T>(std::type_identity<T>) {
    const auto pattern = to_type<T>(period);
    auto* out = static_cast<T*>(buf);
    for (std::size_t i = 0; i < count; ++i) out[i] = pattern[i % pattern.size()];
  });
}

std::size_t mismatches(DataType type, const std::vector<std::int64_t>& period, const void* buf,
                       std::size_t count) {
  return visit_dtype(type, [&]<typename T>(std::type_identity<T>) {
    const auto pattern = to_type<T>(period);
    const auto* in = static_cast<const T*>(buf);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i) wrong += same_value(in[i], pattern[i % pattern.size()]) ? 0 : 1;
    return wrong;
  });
}

}  // namespace

std::int64_t allreduce_input(ReduceOp op, DataType type, int rank, int size, std::size_t j) {
  switch (op) {
    case ReduceOp::sum: {
      // Values in [1, bound]: the sum over `size` ranks stays exact.
      const std::int64_t bound = std::clamp<std::int64_t>(exact_integer_limit(type) / size, 1, 7);
      return (static_cast<std::int64_t>(rank + 1) * static_cast<std::int64_t>(j % 7 + 1)) % bound + 1;
    }
    case ReduceOp::prod: {
      // At most two ranks contribute a factor other than 1: product <= 6.
      const auto n = static_cast<std::size_t>(size);
      if (static_cast<std::size_t>(rank) == j % n) return static_cast<std::int64_t>(j % 3) + 1;
      if (static_cast<std::size_t>(rank) == (j + 1) % n) return 2;
      return 1;
    }
    case ReduceOp::min: case ReduceOp::max:
      return static_cast<std::int64_t>((static_cast<std::size_t>(rank) * 5 + j * 3) % 13) + 1;
  }
  return 1;
}

std::int64_t bcast_input(int root, std::size_t j) {
  return static_cast<std::int64_t>((j * 3 + static_cast<std::size_t>(root) * 7) % 97) + 1;
}

CheckData::CheckData(const BenchOptions& options, int rank, int size)
    : dtype_(options.dtype), input_(kPeriod), expected_(kPeriod) {
  for (std::size_t j = 0; j < kPeriod; ++j) {
    if (options.op == BenchOp::bcast) {
      expected_[j] = bcast_input(options.root, j);
      input_[j] = rank == options.root ? expected_[j] : 0;
      continue;
    }
    input_[j] = allreduce_input(options.redop, dtype_, rank, size, j);
    expected_[j] = allreduce_input(options.redop, dtype_, 0, size, j);
    for (int r = 1; r < size; ++r)
      expected_[j] = fold(options.redop, expected_[j], allreduce_input(options.redop, dtype_, r, size, j));
  }
}

void CheckData::fill_input(void* buf, std::size_t count) const { tile(dtype_, input_, buf, count); }

void CheckData::fill_sentinel(void* buf, std::size_t count) const {
  tile(dtype_, std::vector<std::int64_t>(kPeriod, 0), buf, count);
}

std::size_t CheckData::count_errors(const void* buf, std::size_t count) const {
  return mismatches(dtype_, expected_, buf, count);
}

std::size_t CheckData::count_changed_input(const void* buf, std::size_t count) const {
  return mismatches(dtype_, input_, buf, count);
}

}  // namespace rcoll::bench
