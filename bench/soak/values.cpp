#include "values.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "random.hpp"

namespace rcoll::soak {
namespace {

// ------------------------------------------------------------ formats

enum class Kind { signed_int, unsigned_int, half, bfloat, single, dbl };

struct Format {
  Kind kind;
  std::size_t width;      // bytes
  int significand_bits;   // floats: precision, implicit bit included
  int sum_min_exp;        // floats: range of the shared scale s in k * 2^s
  int sum_max_exp;
  int prod_exp_budget;    // floats: |sum of exponents| a product may reach
};

Format format_of(DataType type) {
  switch (type) {
    case DataType::int8: return {Kind::signed_int, 1, 0, 0, 0, 0};
    case DataType::uint8: return {Kind::unsigned_int, 1, 0, 0, 0, 0};
    case DataType::int32: return {Kind::signed_int, 4, 0, 0, 0, 0};
    case DataType::uint32: return {Kind::unsigned_int, 4, 0, 0, 0, 0};
    case DataType::int64: return {Kind::signed_int, 8, 0, 0, 0, 0};
    case DataType::uint64: return {Kind::unsigned_int, 8, 0, 0, 0, 0};
    // binary16: sums stay below 2048 * 16 < 65504 and above the smallest normal.
    case DataType::float16: return {Kind::half, 2, 11, -10, 4, 14};
    case DataType::bfloat16: return {Kind::bfloat, 2, 8, -40, 40, 120};
    case DataType::float32: return {Kind::single, 4, 24, -60, 60, 120};
    case DataType::float64: return {Kind::dbl, 8, 53, -200, 200, 1000};
  }
  return {Kind::unsigned_int, 1, 0, 0, 0, 0};
}

bool is_float(const Format& f) { return f.kind != Kind::signed_int && f.kind != Kind::unsigned_int; }

std::uint64_t width_mask(std::size_t width) { return width == 8 ? ~0ULL : (1ULL << (8 * width)) - 1; }

// ------------------------------------------------------------ float bits

double half_to_double(std::uint64_t h) {
  const int exponent = static_cast<int>((h >> 10) & 0x1f);
  const double magnitude = exponent == 0    ? std::ldexp(static_cast<double>(h & 0x3ff), -24)
                           : exponent == 31 ? HUGE_VAL
                                            : std::ldexp(static_cast<double>(0x400 | (h & 0x3ff)), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// `v` must be exactly representable as a normal binary16 number or zero.
std::uint64_t half_from_exact(double v) {
  if (v == 0) return 0;
  const std::uint64_t sign = v < 0 ? 0x8000 : 0;
  int e = 0;
  const double m = std::frexp(std::fabs(v), &e);  // |v| = m * 2^e, m in [0.5, 1)
  return sign | static_cast<std::uint64_t>(e + 14) << 10 | static_cast<std::uint64_t>((m * 2 - 1) * 1024);
}

double decode(const Format& f, std::uint64_t bits) {
  switch (f.kind) {
    case Kind::half: return half_to_double(bits);
    case Kind::bfloat: {
      auto word = static_cast<std::uint32_t>(bits << 16);
      float value;
      std::memcpy(&value, &word, 4);
      return value;
    }
    case Kind::single: {
      auto word = static_cast<std::uint32_t>(bits);
      float value;
      std::memcpy(&value, &word, 4);
      return value;
    }
    case Kind::dbl: {
      double value;
      std::memcpy(&value, &bits, 8);
      return value;
    }
    default: return 0;
  }
}

// `v` must be exactly representable in the format.
std::uint64_t encode_exact(const Format& f, double v) {
  switch (f.kind) {
    case Kind::half: return half_from_exact(v);
    case Kind::bfloat:
    case Kind::single: {
      auto value = static_cast<float>(v);
      std::uint32_t word;
      std::memcpy(&word, &value, 4);
      return f.kind == Kind::bfloat ? word >> 16 : word;
    }
    default: {
      std::uint64_t bits;
      std::memcpy(&bits, &v, 8);
      return bits;
    }
  }
}

// Any finite pattern but -0: NaNs get their top exponent bit flipped.
std::uint64_t ordered_float_bits(const Format& f, std::uint64_t bits) {
  const unsigned total = 8 * static_cast<unsigned>(f.width);
  const unsigned fraction = f.kind == Kind::half ? 10 : f.kind == Kind::bfloat ? 7 : f.kind == Kind::single ? 23 : 52;
  bits &= width_mask(f.width);
  const std::uint64_t sign = 1ULL << (total - 1);
  const std::uint64_t exponent_mask = (sign - 1) & ~((1ULL << fraction) - 1);
  if ((bits & exponent_mask) == exponent_mask && (bits & ((1ULL << fraction) - 1)) != 0) bits ^= sign >> 1;
  return bits == sign ? 0 : bits;
}

// ------------------------------------------------------------ elements

struct Recipe {
  Format format;
  ReduceOp op;
  int amplitude;      // float sums: |k| <= amplitude
  int max_exponent;   // float products: |e| <= max_exponent
};

Recipe recipe_for(const ReduceSpec& spec) {
  Recipe r{format_of(spec.type), spec.op, 1, 0};
  const int world = std::max(spec.world, 1);
  if (is_float(r.format)) {
    const long long limit = 1LL << r.format.significand_bits;
    r.amplitude = static_cast<int>(std::clamp<long long>(limit / world, 1, 4));
    r.max_exponent = std::min(8, r.format.prod_exp_budget / world);
  }
  return r;
}

// One element's bits from the stream word shared by all ranks and the rank's own word.
std::uint64_t element(const Recipe& r, std::uint64_t shared, std::uint64_t own) {
  const Format& f = r.format;
  if (!is_float(f)) return own & width_mask(f.width);
  switch (r.op) {
    case ReduceOp::sum: {
      const int span = f.sum_max_exp - f.sum_min_exp + 1;
      const int s = f.sum_min_exp + static_cast<int>(shared % static_cast<std::uint64_t>(span));
      const int k = static_cast<int>(own % static_cast<std::uint64_t>(2 * r.amplitude + 1)) - r.amplitude;
      return encode_exact(f, std::ldexp(k, s));
    }
    case ReduceOp::prod: {
      const int e = static_cast<int>(own % static_cast<std::uint64_t>(2 * r.max_exponent + 1)) - r.max_exponent;
      return encode_exact(f, std::ldexp((own >> 63) ? -1.0 : 1.0, e));
    }
    default: return ordered_float_bits(f, own);
  }
}

void store(std::byte* out, std::size_t i, std::size_t width, std::uint64_t bits) {
  switch (width) {
    case 1: out[i] = static_cast<std::byte>(bits); return;
    case 2: { auto v = static_cast<std::uint16_t>(bits); std::memcpy(out + 2 * i, &v, 2); return; }
    case 4: { auto v = static_cast<std::uint32_t>(bits); std::memcpy(out + 4 * i, &v, 4); return; }
    default: std::memcpy(out + 8 * i, &bits, 8); return;
  }
}

std::int64_t as_signed(std::uint64_t bits, std::size_t width) {
  const unsigned shift = 64 - 8 * static_cast<unsigned>(width);
  return static_cast<std::int64_t>(bits << shift) >> shift;
}

// Folds `value` into the running result `acc` (integers and float min/max:
// bits; float sums and products: `exact` holds the exact value).
void fold_int(const Recipe& r, std::uint64_t& acc, std::uint64_t value) {
  const bool is_signed = r.format.kind == Kind::signed_int;
  switch (r.op) {
    case ReduceOp::sum: acc += value; return;
    case ReduceOp::prod: acc *= value; return;
    case ReduceOp::min:
      if (is_signed ? as_signed(value, r.format.width) < as_signed(acc, r.format.width) : value < acc) acc = value;
      return;
    case ReduceOp::max:
      if (is_signed ? as_signed(value, r.format.width) > as_signed(acc, r.format.width) : value > acc) acc = value;
      return;
  }
}

std::uint64_t shared_seed(const ReduceSpec& spec) { return derive(spec.seed, 0x5eed, 0xffffffffULL); }
std::uint64_t rank_seed(const ReduceSpec& spec, int rank) {
  return derive(spec.seed, 0x5eed, static_cast<std::uint64_t>(rank));
}

}  // namespace

void fill_input(const ReduceSpec& spec, int rank, std::byte* out, std::size_t count) {
  const Recipe r = recipe_for(spec);
  Stream shared(shared_seed(spec));
  Stream own(rank_seed(spec, rank));
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t s = shared.next();
    store(out, i, r.format.width, element(r, s, own.next()));
  }
}

void fill_reference(const ReduceSpec& spec, std::byte* out, std::size_t count) {
  const Recipe r = recipe_for(spec);
  const bool exact_float = is_float(r.format) && (r.op == ReduceOp::sum || r.op == ReduceOp::prod);
  Stream shared(shared_seed(spec));
  std::vector<Stream> own;
  for (int rank = 0; rank < spec.world; ++rank) own.emplace_back(rank_seed(spec, rank));
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t s = shared.next();
    std::uint64_t acc = element(r, s, own[0].next());
    double exact = exact_float ? decode(r.format, acc) : 0;
    double best = is_float(r.format) ? decode(r.format, acc) : 0;
    for (int rank = 1; rank < spec.world; ++rank) {
      const std::uint64_t v = element(r, s, own[static_cast<std::size_t>(rank)].next());
      if (!is_float(r.format)) {
        fold_int(r, acc, v);
      } else if (exact_float) {
        exact = r.op == ReduceOp::sum ? exact + decode(r.format, v) : exact * decode(r.format, v);
      } else {
        const double value = decode(r.format, v);
        if (r.op == ReduceOp::min ? value < best : value > best) {
          best = value;
          acc = v;
        }
      }
    }
    store(out, i, r.format.width, exact_float ? encode_exact(r.format, exact) : acc);
  }
}

void fill_bytes(std::uint64_t seed, std::byte* out, std::size_t bytes) {
  Stream stream(seed);
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    const std::uint64_t word = stream.next();
    std::memcpy(out + i, &word, 8);
  }
  const std::uint64_t tail = stream.next();
  std::memcpy(out + i, &tail, bytes - i);
}

}  // namespace rcoll::soak
