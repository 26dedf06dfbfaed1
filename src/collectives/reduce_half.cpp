#include "collectives/reduce_half.hpp"

#include <algorithm>

#include "collectives/half_f16c.hpp"
#include "collectives/half_float.hpp"
#include "collectives/reduce_ops.hpp"

namespace rcoll::collectives {
namespace {

// Elements per block: the float32 scratch (2 x 1 KiB) stays in L1 and each
// of the three loops below is long enough to vectorise well.
constexpr std::size_t block = 256;

template <typename Format>
RCOLL_KERNEL_CLONES void widen_portable(float* __restrict out, const std::uint16_t* __restrict in, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) out[i] = Format::widen(in[i]);
}

template <typename Format>
RCOLL_KERNEL_CLONES void narrow_portable(std::uint16_t* __restrict out, const float* __restrict in, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) out[i] = Format::narrow(in[i]);
}

struct Binary16 {
  static float widen(std::uint16_t v) noexcept { return half_to_float(v); }
  static std::uint16_t narrow(float v) noexcept { return float_to_half(v); }
  // The hardware conversions where the CPU has them (decided once).
  static void widen_block(float* out, const std::uint16_t* in, std::size_t count) noexcept {
    static const auto convert = f16c_available() ? half_to_float_f16c : widen_portable<Binary16>;
    convert(out, in, count);
  }
  static void narrow_block(std::uint16_t* out, const float* in, std::size_t count) noexcept {
    static const auto convert = f16c_available() ? float_to_half_f16c : narrow_portable<Binary16>;
    convert(out, in, count);
  }
};

struct BFloat16 {
  static float widen(std::uint16_t v) noexcept { return bfloat16_to_float(v); }
  static std::uint16_t narrow(float v) noexcept { return float_to_bfloat16(v); }
  static void widen_block(float* out, const std::uint16_t* in, std::size_t count) noexcept {
    widen_portable<BFloat16>(out, in, count);
  }
  static void narrow_block(std::uint16_t* out, const float* in, std::size_t count) noexcept {
    narrow_portable<BFloat16>(out, in, count);
  }
};

template <typename Format, typename Op>
void reduce_blocks(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b, std::size_t count) noexcept {
  alignas(64) float wide_a[block];
  alignas(64) float wide_b[block];
  for (std::size_t first = 0; first < count; first += block) {
    const std::size_t n = std::min(block, count - first);
    Format::widen_block(wide_a, a + first, n);
    Format::widen_block(wide_b, b + first, n);
    ops::apply_into<float, Op>(wide_a, wide_b, n);
    Format::narrow_block(out + first, wide_a, n);
  }
}

template <typename Format>
void reduce_format(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b, std::size_t count,
                   ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum: return reduce_blocks<Format, ops::Sum<float>>(out, a, b, count);
    case ReduceOp::prod: return reduce_blocks<Format, ops::Prod<float>>(out, a, b, count);
    case ReduceOp::min: return reduce_blocks<Format, ops::Min<float>>(out, a, b, count);
    case ReduceOp::max: return reduce_blocks<Format, ops::Max<float>>(out, a, b, count);
  }
}

}  // namespace

void reduce_half(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b, std::size_t count,
                 HalfFormat format, ReduceOp op) {
  if (format == HalfFormat::binary16)
    reduce_format<Binary16>(out, a, b, count, op);
  else
    reduce_format<BFloat16>(out, a, b, count, op);
}

}  // namespace rcoll::collectives
