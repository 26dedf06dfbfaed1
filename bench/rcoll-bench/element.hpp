// Element types of the benchmark: dispatch from DataType to the C++ type,
// and exact conversions between small integers and every element type
// (including the 16-bit floats, which the public API stores as raw bits).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include <rcoll/rcoll.hpp>

namespace rcoll::bench {

// IEEE binary16 <-> float32, round to nearest even; handles subnormals,
// infinities and NaN.
std::uint16_t float_to_half_bits(float value) noexcept;
float half_bits_to_float(std::uint16_t bits) noexcept;
// bfloat16 <-> float32, round to nearest even.
std::uint16_t float_to_bfloat16_bits(float value) noexcept;
float bfloat16_bits_to_float(std::uint16_t bits) noexcept;

// The value `v` stored as T. Exact for |v| within the type's exact integer
// range; integer types wrap modulo 2^bits (as C++20 conversions do).
template <typename T>
T from_int(std::int64_t v) noexcept {
  if constexpr (std::is_same_v<T, float16_t>) return float16_t{float_to_half_bits(static_cast<float>(v))};
  else if constexpr (std::is_same_v<T, bfloat16_t>) return bfloat16_t{float_to_bfloat16_bits(static_cast<float>(v))};
  else return static_cast<T>(v);
}

template <typename T>
double to_double(T value) noexcept {
  if constexpr (std::is_same_v<T, float16_t>) return half_bits_to_float(value.bits);
  else if constexpr (std::is_same_v<T, bfloat16_t>) return bfloat16_bits_to_float(value.bits);
  else return static_cast<double>(value);
}

// Bitwise equality for the raw 16-bit floats, == for the rest.
template <typename T>
bool same_value(T a, T b) noexcept {
  if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) return a.bits == b.bits;
  else return a == b;
}

// Largest n such that every integer in [0, n] is exactly representable and
// sums up to n neither overflow nor round.
std::int64_t exact_integer_limit(DataType type) noexcept;

// Calls f(std::type_identity<T>{}) with T the C++ element type of `type`.
template <typename F>
decltype(auto) visit_dtype(DataType type, F&& f) {
  switch (type) {
    case DataType::int8: return f(std::type_identity<std::int8_t>{});
    case DataType::uint8: return f(std::type_identity<std::uint8_t>{});
    case DataType::int32: return f(std::type_identity<std::int32_t>{});
    case DataType::uint32: return f(std::type_identity<std::uint32_t>{});
    case DataType::int64: return f(std::type_identity<std::int64_t>{});
    case DataType::uint64: return f(std::type_identity<std::uint64_t>{});
    case DataType::float16: return f(std::type_identity<float16_t>{});
    case DataType::bfloat16: return f(std::type_identity<bfloat16_t>{});
    case DataType::float32: return f(std::type_identity<float>{});
    case DataType::float64: break;
  }
  return f(std::type_identity<double>{});
}

}  // namespace rcoll::bench
