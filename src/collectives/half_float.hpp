// IEEE 754 binary16 and bfloat16 <-> float32 conversions, written as
// branch-free selects so that GCC vectorises loops over them.
//
// Widening is exact (every binary16 and bfloat16 value, subnormals, infinities
// and NaN payloads included, is a float32 value). Narrowing rounds to nearest,
// ties to even, overflows to infinity and keeps NaNs NaN (quieted, with as much
// of the payload as fits). Assumes the default floating-point environment
// (round to nearest), as the rest of the library does.
#pragma once

#include <bit>
#include <cstdint>

namespace rcoll::collectives {

inline float half_to_float(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  // Normal numbers: re-bias the exponent from 15 to 127 and widen the mantissa.
  const std::uint32_t normal = ((exponent + 112u) << 23) | (mantissa << 13);
  const std::uint32_t inf_or_nan = 0x7f800000u | (mantissa << 13);
  // Subnormals and zero are mantissa * 2^-24: the float 2^-14 * (1 + mantissa/1024)
  // minus 2^-14, exact. Selected with masks rather than `?:`: GCC keeps the
  // float subtraction out of a branch then, so the loop vectorises.
  const std::uint32_t subnormal =
      std::bit_cast<std::uint32_t>(std::bit_cast<float>((113u << 23) | (mantissa << 13)) - 0x1p-14f);
  const std::uint32_t is_subnormal = 0u - static_cast<std::uint32_t>(exponent == 0);
  const std::uint32_t wide = exponent == 0x1fu ? inf_or_nan : normal;
  return std::bit_cast<float>(sign | (subnormal & is_subnormal) | (wide & ~is_subnormal));
}

inline std::uint16_t float_to_half(float value) noexcept {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t abs = bits & 0x7fffffffu;
  // Normal range: re-bias, then drop 13 mantissa bits rounding to nearest
  // even; a carry out of the mantissa bumps the exponent, which is right.
  const std::uint32_t rebased = abs - (112u << 23);
  const std::uint32_t normal = (rebased + 0xfffu + ((rebased >> 13) & 1u)) >> 13;
  // Below 2^-14: in |value| + 0.5 one float unit in the last place is 2^-24,
  // the binary16 subnormal step, so the FPU's own rounding (nearest even)
  // leaves round(|value| / 2^-24) in the low bits.
  const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(std::bit_cast<float>(abs) + 0.5f) - 0x3f000000u;
  const std::uint32_t nan = 0x7e00u | ((abs >> 13) & 0x3ffu);
  // Masks, not `?:`, for the float path, as in half_to_float.
  const std::uint32_t is_small = 0u - static_cast<std::uint32_t>(abs < 0x38800000u);  // below 2^-14
  const std::uint32_t large = abs > 0x7f800000u   ? nan
                              : abs >= 0x477ff000u ? 0x7c00u  // >= 65520 rounds to infinity
                                                   : normal;
  return static_cast<std::uint16_t>(sign | (subnormal & is_small) | (large & ~is_small));
}

inline float bfloat16_to_float(std::uint16_t b) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

inline std::uint16_t float_to_bfloat16(float value) noexcept {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  // Rounding by carry also takes the largest finite floats to infinity, as it should.
  const std::uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const std::uint32_t nan = (bits >> 16) | 0x40u;
  return static_cast<std::uint16_t>((bits & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

}  // namespace rcoll::collectives
