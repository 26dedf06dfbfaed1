// The four reduction operators on one element, and the loops that apply
// them. The loops are plain indexed loops over __restrict pointers so that
// GCC -O3 vectorises them (see docs: check with -fopt-info-vec-optimized).
#pragma once

#include <cstddef>
#include <type_traits>

// On x86-64 Linux the loops are compiled twice, for AVX2 and for the
// baseline, and the loader picks one per CPU (GCC function multiversioning).
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(RCOLL_NO_KERNEL_CLONES)
#define RCOLL_KERNEL_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define RCOLL_KERNEL_CLONES
#endif

namespace rcoll::collectives::ops {

// Integer sums and products are computed in unsigned arithmetic (at least
// `unsigned int`, so that narrow types do not promote to signed int), which
// wraps instead of being undefined.
template <typename T>
using Wide = std::common_type_t<std::make_unsigned_t<T>, unsigned>;

template <typename T>
struct Sum {
  static T apply(T a, T b) noexcept {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
    else
      return a + b;
  }
};

template <typename T>
struct Prod {
  static T apply(T a, T b) noexcept {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
    else
      return a * b;
  }
};

// `a != a` is true only for NaN: a NaN operand wins, whichever side it is on.
template <typename T>
struct Min {
  static T apply(T a, T b) noexcept { return (a < b || a != a) ? a : b; }
};

template <typename T>
struct Max {
  static T apply(T a, T b) noexcept { return (a > b || a != a) ? a : b; }
};

template <typename T, typename Op>
RCOLL_KERNEL_CLONES void apply_into(T* __restrict inout, const T* __restrict in, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) inout[i] = Op::apply(inout[i], in[i]);
}

// inout = in op inout: keeps the left operand on the left when the output
// aliases the right one (min/max of +0 and -0 are not commutative).
template <typename T, typename Op>
RCOLL_KERNEL_CLONES void apply_into_reversed(T* __restrict inout, const T* __restrict in, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) inout[i] = Op::apply(in[i], inout[i]);
}

template <typename T, typename Op>
RCOLL_KERNEL_CLONES void apply3(T* __restrict out, const T* __restrict a, const T* __restrict b, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) out[i] = Op::apply(a[i], b[i]);
}

}  // namespace rcoll::collectives::ops
