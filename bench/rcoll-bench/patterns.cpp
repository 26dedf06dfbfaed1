#include "patterns.hpp"

#include <algorithm>

#include "element.hpp"

namespace rcoll::bench {
namespace {

std::int64_t fold(ReduceOp op, std::int64_t a, std::int64_t b) {
  switch (op) {
    case ReduceOp::sum: return a + b;
    case ReduceOp::prod: return a * b;
    case ReduceOp::min: return std::min(a, b);
    case ReduceOp::max: return std::max(a, b);
  }
  return a;
}

template <typename F>
Period period_of(F value) {
  Period period(kPeriod);
  for (std::size_t j = 0; j < kPeriod; ++j) period[j] = value(j);
  return period;
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

std::int64_t block_input(int owner, int dest, std::size_t j) {
  // 3, 7 and 13 are prime to 127: a step in j, owner or dest changes the value.
  const std::size_t mixed = j * 3 + static_cast<std::size_t>(owner) * 7 + static_cast<std::size_t>(dest + 1) * 13;
  return static_cast<std::int64_t>(mixed % 127) + 1;
}

Period reduction_input(ReduceOp op, DataType type, int rank, int size) {
  return period_of([&](std::size_t j) { return allreduce_input(op, type, rank, size, j); });
}

Period reduction_result(ReduceOp op, DataType type, int size) {
  Period result = reduction_input(op, type, 0, size);
  for (int r = 1; r < size; ++r) {
    const Period input = reduction_input(op, type, r, size);
    for (std::size_t j = 0; j < kPeriod; ++j) result[j] = fold(op, result[j], input[j]);
  }
  return result;
}

Period bcast_period(int root) {
  return period_of([&](std::size_t j) { return bcast_input(root, j); });
}

Period block_period(int owner, int dest) {
  return period_of([&](std::size_t j) { return block_input(owner, dest, j); });
}

}  // namespace rcoll::bench
