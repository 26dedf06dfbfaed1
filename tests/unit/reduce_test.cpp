// Reduction kernels and the 16-bit float conversions they rely on.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "collectives/half_f16c.hpp"
#include "collectives/half_float.hpp"
#include "collectives/reduce.hpp"

namespace rcoll::collectives {
namespace {

bool half_is_nan(std::uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0; }
bool bf16_is_nan(std::uint16_t b) { return (b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0; }
std::uint32_t bits_of(float f) { return std::bit_cast<std::uint32_t>(f); }

// ---------------------------------------------------------------- binary16

TEST(HalfFloat, EveryBinary16RoundTripsThroughFloat) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = half_to_float(bits);
    if (half_is_nan(bits)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
      // NaNs come back quiet, with sign and payload kept.
      ASSERT_EQ(float_to_half(f), bits | 0x200) << std::hex << h;
    } else {
      ASSERT_EQ(float_to_half(f), bits) << std::hex << h;
    }
  }
}

TEST(HalfFloat, WideningMatchesTheValueOfEveryBinary16) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    double expected;
    if (exponent == 0x1f) {
      expected = mantissa == 0 ? sign * std::numeric_limits<double>::infinity() : std::nan("");
    } else if (exponent == 0) {
      expected = sign * std::ldexp(mantissa, -24);
    } else {
      expected = sign * std::ldexp(1024 + mantissa, exponent - 25);
    }
    const float f = half_to_float(static_cast<std::uint16_t>(h));
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(f));
    } else {
      ASSERT_EQ(static_cast<double>(f), expected) << std::hex << h;
      ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << std::hex << h;
    }
  }
}

TEST(HalfFloat, KnownValues) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(0.0f), 0x0000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(0.1f), 0x2e66);
  EXPECT_EQ(float_to_half(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);     // largest finite
  EXPECT_EQ(float_to_half(65519.996f), 0x7bff);   // just below the midpoint to "65536"
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);     // midpoint, ties to even = infinity
  EXPECT_EQ(float_to_half(1e10f), 0x7c00);
  EXPECT_EQ(float_to_half(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);      // smallest normal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);      // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);      // tie between 0 and 1 ulp: even
  EXPECT_EQ(float_to_half(std::ldexp(1.5f, -24)), 0x0002);      // tie between 1 and 2 ulp: even
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -26) * 3), 0x0001);  // 0.75 ulp rounds up
  EXPECT_EQ(float_to_half(std::ldexp(1023.5f, -24)), 0x0400);   // largest subnormal + half ulp: to normal
  EXPECT_EQ(float_to_half(2049.0f), 0x6800);                    // 2048 (tie, even)
  EXPECT_EQ(float_to_half(2051.0f), 0x6802);                    // 2052 (tie, even)
  EXPECT_TRUE(half_is_nan(float_to_half(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(half_is_nan(float_to_half(std::bit_cast<float>(0x7f800001u))));  // payload only in low bits
  EXPECT_EQ(bits_of(half_to_float(0x3c00)), bits_of(1.0f));
  EXPECT_EQ(bits_of(half_to_float(0x0001)), bits_of(std::ldexp(1.0f, -24)));
  EXPECT_EQ(bits_of(half_to_float(0x8000)), bits_of(-0.0f));
  EXPECT_EQ(half_to_float(0x7c00), std::numeric_limits<float>::infinity());
}

// Between two neighbouring binary16 values: the midpoint rounds to the even
// one, anything off the midpoint to the nearer one.
TEST(HalfFloat, RoundsToNearestEvenBetweenEveryPairOfNeighbours) {
  for (std::uint32_t h = 0; h < 0x7bff; ++h) {
    const auto lo = static_cast<std::uint16_t>(h);
    const auto hi = static_cast<std::uint16_t>(h + 1);
    const float mid = (half_to_float(lo) + half_to_float(hi)) / 2;  // exact in float
    const std::uint16_t even = (lo & 1) ? hi : lo;
    ASSERT_EQ(float_to_half(mid), even) << std::hex << h;
    ASSERT_EQ(float_to_half(std::nextafter(mid, 0.0f)), lo) << std::hex << h;
    ASSERT_EQ(float_to_half(std::nextafter(mid, 1e9f)), hi) << std::hex << h;
    ASSERT_EQ(float_to_half(-mid), even | 0x8000) << std::hex << h;
  }
}

#if defined(__FLT16_MAX__)
// The compiler's own _Float16 conversion as an independent reference.
TEST(HalfFloat, MatchesCompilerFloat16OnRandomFloats) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2'000'000; ++i) {
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    if (std::isnan(f)) continue;
    const auto expected = std::bit_cast<std::uint16_t>(static_cast<_Float16>(f));
    ASSERT_EQ(float_to_half(f), expected) << std::hex << bits_of(f);
  }
}
#endif

// The F16C path that reductions use where the CPU has it.
TEST(HalfFloat, HardwareConversionsMatchThePortableOnes) {
  if (!f16c_available()) GTEST_SKIP() << "this CPU has no F16C";
  std::vector<std::uint16_t> halves(0x10000);
  for (std::uint32_t h = 0; h < 0x10000; ++h) halves[h] = static_cast<std::uint16_t>(h);
  std::vector<float> wide(halves.size());
  half_to_float_f16c(wide.data(), halves.data(), halves.size());
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float portable = half_to_float(halves[h]);
    if (half_is_nan(halves[h]))
      ASSERT_EQ(float_to_half(wide[h]), float_to_half(portable)) << std::hex << h;
    else
      ASSERT_EQ(bits_of(wide[h]), bits_of(portable)) << std::hex << h;
  }
  // Every midpoint between neighbours and the floats next to it, then random bits (NaNs included).
  std::vector<float> floats;
  for (std::uint32_t h = 0; h < 0x7bff; ++h) {
    const float mid = (half_to_float(static_cast<std::uint16_t>(h)) + half_to_float(static_cast<std::uint16_t>(h + 1))) / 2;
    for (float f : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      floats.push_back(f);
      floats.push_back(-f);
    }
  }
  std::mt19937 rng(3);
  for (int i = 0; i < 1'000'003; ++i) floats.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
  std::vector<std::uint16_t> narrow(floats.size());
  float_to_half_f16c(narrow.data(), floats.data(), floats.size());
  for (std::size_t i = 0; i < floats.size(); ++i)
    ASSERT_EQ(narrow[i], float_to_half(floats[i])) << std::hex << bits_of(floats[i]);
}

// ---------------------------------------------------------------- bfloat16

std::uint16_t bf16_reference(float f) {
  const std::uint32_t bits = bits_of(f);
  const auto lo = static_cast<std::uint16_t>(bits >> 16);
  const auto hi = static_cast<std::uint16_t>(lo + 1);
  const double d_lo = std::abs(static_cast<double>(bfloat16_to_float(lo)) - f);
  const double d_hi = std::abs(static_cast<double>(bfloat16_to_float(hi)) - f);
  if (std::isinf(bfloat16_to_float(hi)) && !std::isinf(f)) {
    // Overflow: compare with 2^128, where the next binade would start.
    const double next = std::copysign(std::ldexp(1.0, 128), static_cast<double>(f));
    const double d_next = std::abs(next - f);
    return d_next < d_lo || (d_next == d_lo && (lo & 1)) ? hi : lo;
  }
  return d_hi < d_lo || (d_hi == d_lo && (lo & 1)) ? hi : lo;
}

TEST(BFloat16, EveryBFloat16RoundTripsThroughFloat) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float f = bfloat16_to_float(bits);
    ASSERT_EQ(bits_of(f), b << 16);
    if (bf16_is_nan(bits))
      ASSERT_EQ(float_to_bfloat16(f), bits | 0x40) << std::hex << b;
    else
      ASSERT_EQ(float_to_bfloat16(f), bits) << std::hex << b;
  }
}

TEST(BFloat16, KnownValues) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bfloat16(-1.0f), 0xbf80);
  EXPECT_EQ(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie, even
  EXPECT_EQ(float_to_bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie, even
  EXPECT_EQ(float_to_bfloat16(257.0f), 0x4380);                           // 256
  EXPECT_EQ(float_to_bfloat16(259.0f), 0x4382);                           // 260
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x00018000u)), 0x0002);  // subnormal tie, even
  EXPECT_TRUE(bf16_is_nan(float_to_bfloat16(std::bit_cast<float>(0x7f800001u))));
}

TEST(BFloat16, MatchesReferenceOnRandomFloatsAndMidpoints) {
  std::mt19937 rng(11);
  for (int i = 0; i < 1'000'000; ++i) {
    std::uint32_t bits = static_cast<std::uint32_t>(rng());
    if (i % 4 == 0) bits = (bits & 0xffff0000u) | 0x8000u;  // exact midpoints
    const float f = std::bit_cast<float>(bits);
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_bfloat16(f), bf16_reference(f)) << std::hex << bits;
  }
}

// ---------------------------------------------------------------- kernels

// Scalar model of one element of one operation, independent of the kernels.
template <typename T>
T scalar(T a, T b, ReduceOp op) {
  if constexpr (std::is_integral_v<T>) {
    // Wrap through 64-bit unsigned arithmetic, then truncate.
    const auto x = static_cast<std::uint64_t>(a), y = static_cast<std::uint64_t>(b);
    switch (op) {
      case ReduceOp::sum: return static_cast<T>(x + y);
      case ReduceOp::prod: return static_cast<T>(x * y);
      case ReduceOp::min: return a < b ? a : b;
      case ReduceOp::max: return a > b ? a : b;
    }
  } else {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
    switch (op) {
      case ReduceOp::sum: return a + b;
      case ReduceOp::prod: return a * b;
      case ReduceOp::min: return a < b ? a : b;  // a tie (+0, -0) gives the right operand
      case ReduceOp::max: return a > b ? a : b;
    }
  }
  return T{};
}

template <typename T>
T random_value(std::mt19937_64& rng) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(rng());
  } else {
    if (rng() % 50 == 0) return std::numeric_limits<T>::quiet_NaN();
    return static_cast<T>(std::uniform_real_distribution<double>(-100, 100)(rng));
  }
}

template <typename T>
bool same(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  }
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

const std::size_t kCounts[] = {0, 1, 7, 255, 256, 257, 1000};
const ReduceOp kOps[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max};

// All three aliasing forms against the scalar model.
template <typename T>
void check_kernels(DataType type) {
  std::mt19937_64 rng(42);
  for (ReduceOp op : kOps) {
    for (std::size_t count : kCounts) {
      std::vector<T> a(count), b(count), expected(count);
      for (std::size_t i = 0; i < count; ++i) {
        a[i] = random_value<T>(rng);
        b[i] = random_value<T>(rng);
        expected[i] = scalar(a[i], b[i], op);
      }
      std::vector<T> out(count), into = a, reversed = b;
      reduce(out.data(), a.data(), b.data(), count, type, op);
      reduce_into(into.data(), b.data(), count, type, op);
      reduce(reversed.data(), a.data(), reversed.data(), count, type, op);
      for (std::size_t i = 0; i < count; ++i) {
        ASSERT_TRUE(same(out[i], expected[i])) << to_string(type) << " " << to_string(op) << " i=" << i;
        ASSERT_TRUE(same(into[i], expected[i])) << to_string(type) << " " << to_string(op) << " i=" << i;
        ASSERT_TRUE(same(reversed[i], expected[i])) << to_string(type) << " " << to_string(op) << " i=" << i;
      }
    }
  }
}

TEST(Reduce, Int8) { check_kernels<std::int8_t>(DataType::int8); }
TEST(Reduce, UInt8) { check_kernels<std::uint8_t>(DataType::uint8); }
TEST(Reduce, Int32) { check_kernels<std::int32_t>(DataType::int32); }
TEST(Reduce, UInt32) { check_kernels<std::uint32_t>(DataType::uint32); }
TEST(Reduce, Int64) { check_kernels<std::int64_t>(DataType::int64); }
TEST(Reduce, UInt64) { check_kernels<std::uint64_t>(DataType::uint64); }
TEST(Reduce, Float32) { check_kernels<float>(DataType::float32); }
TEST(Reduce, Float64) { check_kernels<double>(DataType::float64); }

// 16-bit floats: combined in float32 and rounded once.
void check_half_kernels(DataType type, float (*widen)(std::uint16_t), std::uint16_t (*narrow)(float)) {
  std::mt19937_64 rng(5);
  for (ReduceOp op : kOps) {
    for (std::size_t count : kCounts) {
      std::vector<std::uint16_t> a(count), b(count);
      for (std::size_t i = 0; i < count; ++i) {
        a[i] = narrow(random_value<float>(rng));
        b[i] = narrow(random_value<float>(rng));
      }
      std::vector<std::uint16_t> out(count), into = a, reversed = b;
      reduce(out.data(), a.data(), b.data(), count, type, op);
      reduce_into(into.data(), b.data(), count, type, op);
      reduce(reversed.data(), a.data(), reversed.data(), count, type, op);
      for (std::size_t i = 0; i < count; ++i) {
        const float expected = scalar(widen(a[i]), widen(b[i]), op);
        for (std::uint16_t got : {out[i], into[i], reversed[i]}) {
          if (std::isnan(expected))
            ASSERT_TRUE(std::isnan(widen(got))) << to_string(type) << " " << to_string(op) << " i=" << i;
          else
            ASSERT_EQ(got, narrow(expected)) << to_string(type) << " " << to_string(op) << " i=" << i;
        }
      }
    }
  }
}

TEST(Reduce, Float16) { check_half_kernels(DataType::float16, half_to_float, float_to_half); }
TEST(Reduce, BFloat16) { check_half_kernels(DataType::bfloat16, bfloat16_to_float, float_to_bfloat16); }

TEST(Reduce, IntegersWrapAround) {
  std::int8_t i8[] = {127, -128, 100};
  const std::int8_t one8[] = {1, -1, 2};
  reduce_into(i8, one8, 3, DataType::int8, ReduceOp::sum);
  EXPECT_EQ(i8[0], -128);
  EXPECT_EQ(i8[1], 127);
  EXPECT_EQ(i8[2], 102);
  std::int8_t p8[] = {-128};
  const std::int8_t m1[] = {-1};
  reduce_into(p8, m1, 1, DataType::int8, ReduceOp::prod);
  EXPECT_EQ(p8[0], -128);
  std::uint8_t u8[] = {200};
  const std::uint8_t u8b[] = {100};
  reduce_into(u8, u8b, 1, DataType::uint8, ReduceOp::sum);
  EXPECT_EQ(u8[0], 44);
  std::int64_t i64[] = {std::numeric_limits<std::int64_t>::max()};
  const std::int64_t one64[] = {1};
  reduce_into(i64, one64, 1, DataType::int64, ReduceOp::sum);
  EXPECT_EQ(i64[0], std::numeric_limits<std::int64_t>::min());
  std::int32_t i32[] = {65536};
  const std::int32_t i32b[] = {65537};
  reduce_into(i32, i32b, 1, DataType::int32, ReduceOp::prod);
  EXPECT_EQ(i32[0], 65536);  // 2^32 + 2^16 mod 2^32
}

TEST(Reduce, HalfSumsRoundOnceToNearestEven) {
  const std::uint16_t a[] = {float_to_half(2048), float_to_half(2048), float_to_half(65504), float_to_half(1)};
  const std::uint16_t b[] = {float_to_half(1), float_to_half(3), float_to_half(16), float_to_half(-1)};
  std::uint16_t out[4];
  reduce(out, a, b, 4, DataType::float16, ReduceOp::sum);
  EXPECT_EQ(half_to_float(out[0]), 2048.0f);
  EXPECT_EQ(half_to_float(out[1]), 2052.0f);
  EXPECT_EQ(out[2], 0x7c00);  // 65520 overflows to infinity
  EXPECT_EQ(out[3], 0x0000);  // 1 + -1 = +0
  const std::uint16_t c[] = {float_to_bfloat16(256), float_to_bfloat16(256)};
  const std::uint16_t d[] = {float_to_bfloat16(1), float_to_bfloat16(3)};
  std::uint16_t bf[2];
  reduce(bf, c, d, 2, DataType::bfloat16, ReduceOp::sum);
  EXPECT_EQ(bfloat16_to_float(bf[0]), 256.0f);
  EXPECT_EQ(bfloat16_to_float(bf[1]), 260.0f);
}

TEST(Reduce, MinMaxPropagateNaNFromEitherSide) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (ReduceOp op : {ReduceOp::min, ReduceOp::max}) {
    const float a[] = {nan, 1.0f};
    const float b[] = {1.0f, nan};
    float out[2];
    reduce(out, a, b, 2, DataType::float32, op);
    EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[1])) << to_string(op);
    const double da[] = {std::nan(""), 1.0};
    const double db[] = {1.0, std::nan("")};
    double dout[2];
    reduce(dout, da, db, 2, DataType::float64, op);
    EXPECT_TRUE(std::isnan(dout[0]) && std::isnan(dout[1])) << to_string(op);
    const std::uint16_t ha[] = {0x7e00, 0x3c00};
    const std::uint16_t hb[] = {0x3c00, 0x7e00};
    std::uint16_t hout[2];
    reduce(hout, ha, hb, 2, DataType::float16, op);
    EXPECT_TRUE(half_is_nan(hout[0]) && half_is_nan(hout[1])) << to_string(op);
    const std::uint16_t ba[] = {0x7fc0, 0x3f80};
    const std::uint16_t bb[] = {0x3f80, 0x7fc0};
    reduce(hout, ba, bb, 2, DataType::bfloat16, op);
    EXPECT_TRUE(bf16_is_nan(hout[0]) && bf16_is_nan(hout[1])) << to_string(op);
  }
}

// min(+0, -0) is -0 and min(-0, +0) is +0 (the right operand wins a tie):
// when the output aliases the right operand, the operands must keep their sides.
TEST(Reduce, OperandOrderIsKeptWhenOutputAliasesTheRightOperand) {
  const float a[] = {0.0f};
  float b[] = {-0.0f};
  reduce(b, a, b, 1, DataType::float32, ReduceOp::min);
  EXPECT_TRUE(std::signbit(b[0]));
  float c[] = {0.0f};
  const float d[] = {-0.0f};
  reduce(c, d, c, 1, DataType::float32, ReduceOp::min);
  EXPECT_FALSE(std::signbit(c[0]));
}

}  // namespace
}  // namespace rcoll::collectives
