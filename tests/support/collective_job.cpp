#include "support/collective_job.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "collectives/half_float.hpp"
#include "support/run_ranks.hpp"

namespace rcoll::test {
namespace {

bool is_unsigned(DataType t) { return t == DataType::uint8 || t == DataType::uint32 || t == DataType::uint64; }

}  // namespace

std::int64_t input_value(int rank, std::size_t i, DataType type, ReduceOp op) {
  const bool signed_type = !is_unsigned(type);
  const auto r = static_cast<std::int64_t>(rank);
  const auto k = static_cast<std::int64_t>(i % 1000003);
  switch (op) {
    case ReduceOp::sum: return (r * 7 + k * 3) % 9 - (signed_type ? 4 : 0);
    case ReduceOp::prod: {
      const std::int64_t magnitude = (k + r) % 5 == 0 ? 2 : 1;
      return signed_type && (k * 3 + r) % 7 == 1 ? -magnitude : magnitude;
    }
    case ReduceOp::min:
    case ReduceOp::max: return (r * 37 + k * 11) % 101 - (signed_type ? 50 : 0);
  }
  return 0;
}

void store(DataType type, void* base, std::size_t i, std::int64_t v) {
  auto put = [&](auto value) { std::memcpy(static_cast<std::byte*>(base) + i * sizeof(value), &value, sizeof(value)); };
  switch (type) {
    case DataType::int8: return put(static_cast<std::int8_t>(v));
    case DataType::uint8: return put(static_cast<std::uint8_t>(v));
    case DataType::int32: return put(static_cast<std::int32_t>(v));
    case DataType::uint32: return put(static_cast<std::uint32_t>(v));
    case DataType::int64: return put(static_cast<std::int64_t>(v));
    case DataType::uint64: return put(static_cast<std::uint64_t>(v));
    case DataType::float16: return put(collectives::float_to_half(static_cast<float>(v)));
    case DataType::bfloat16: return put(collectives::float_to_bfloat16(static_cast<float>(v)));
    case DataType::float32: return put(static_cast<float>(v));
    case DataType::float64: return put(static_cast<double>(v));
  }
}

std::vector<std::byte> make_input(int rank, std::size_t count, DataType type, ReduceOp op) {
  std::vector<std::byte> buf(count * dtype_size(type));
  for (std::size_t i = 0; i < count; ++i) store(type, buf.data(), i, input_value(rank, i, type, op));
  return buf;
}

std::vector<std::byte> reference(int size, std::size_t count, DataType type, ReduceOp op) {
  std::vector<std::byte> buf(count * dtype_size(type));
  for (std::size_t i = 0; i < count; ++i) {
    std::int64_t acc = input_value(0, i, type, op);
    for (int r = 1; r < size; ++r) {
      const std::int64_t v = input_value(r, i, type, op);
      switch (op) {
        case ReduceOp::sum: acc += v; break;
        case ReduceOp::prod: acc *= v; break;
        case ReduceOp::min: acc = std::min(acc, v); break;
        case ReduceOp::max: acc = std::max(acc, v); break;
      }
    }
    store(type, buf.data(), i, acc);
  }
  return buf;
}

void run_cases(const Job& job, std::size_t cases, const std::function<std::string(int rank, std::size_t i)>& run,
               const std::function<std::string(std::size_t i)>& describe) {
  const int size = job.size();
  std::vector<std::vector<std::string>> errors(cases, std::vector<std::string>(static_cast<std::size_t>(size)));
  run_ranks(size, [&](int rank) {
    for (std::size_t i = 0; i < cases; ++i) errors[i][static_cast<std::size_t>(rank)] = run(rank, i);
  });
  int failures = 0;
  for (std::size_t i = 0; i < cases; ++i)
    for (const std::string& e : errors[i])
      if (!e.empty() && ++failures <= 10) ADD_FAILURE() << describe(i) << ": " << e;
  EXPECT_EQ(failures, 0);
}

}  // namespace rcoll::test
