#include "element.hpp"

#include <bit>
#include <cmath>

namespace rcoll::bench {
namespace {

// Drops `shift` low bits of `mantissa`, rounding to nearest, ties to even.
std::uint32_t round_shift(std::uint32_t mantissa, unsigned shift) noexcept {
  const std::uint32_t kept = mantissa >> shift;
  const std::uint32_t rest = mantissa & ((1u << shift) - 1);
  const std::uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1))) ? 1 : 0);
}

}  // namespace

std::uint16_t float_to_half_bits(float value) noexcept {
  const auto x = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000);
  const std::uint32_t magnitude = x & 0x7fffffff;
  if (magnitude > 0x7f800000) return sign | 0x7e00;  // NaN
  const int exponent = static_cast<int>(magnitude >> 23) - 127 + 15;
  const std::uint32_t mantissa = magnitude & 0x7fffff;
  if (exponent >= 31) return sign | 0x7c00;  // overflow or infinity
  if (exponent <= 0) {                       // subnormal half or zero
    if (exponent < -10) return sign;
    const auto shift = static_cast<unsigned>(14 - exponent);
    return sign | static_cast<std::uint16_t>(round_shift(mantissa | 0x800000, shift));
  }
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  const std::uint32_t bits = (static_cast<std::uint32_t>(exponent) << 10) + round_shift(mantissa, 13);
  return sign | static_cast<std::uint16_t>(bits);
}

float half_bits_to_float(std::uint16_t bits) noexcept {
  const float sign = (bits & 0x8000) ? -1.0f : 1.0f;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
  if (exponent == 31) return mantissa ? std::nanf("") : sign * INFINITY;
  return sign * std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
}

std::uint16_t float_to_bfloat16_bits(float value) noexcept {
  const auto x = std::bit_cast<std::uint32_t>(value);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<std::uint16_t>((x >> 16) | 0x40);  // quiet NaN
  return static_cast<std::uint16_t>(round_shift(x, 16));
}

float bfloat16_bits_to_float(std::uint16_t bits) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::int64_t exact_integer_limit(DataType type) noexcept {
  switch (type) {
    case DataType::int8: return 127;
    case DataType::uint8: return 255;
    case DataType::bfloat16: return 256;
    case DataType::float16: return 2048;
    case DataType::float32: return std::int64_t{1} << 24;
    case DataType::int32: case DataType::uint32: return std::int64_t{1} << 31;
    default: return std::int64_t{1} << 53;
  }
}

}  // namespace rcoll::bench
