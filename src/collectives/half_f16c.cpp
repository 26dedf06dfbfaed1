#include "collectives/half_f16c.hpp"

#include "collectives/half_float.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RCOLL_HAVE_F16C_PATH 1
#endif

namespace rcoll::collectives {

#ifdef RCOLL_HAVE_F16C_PATH

bool f16c_available() noexcept {
  static const bool available = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return available;
}

// Eight elements per instruction; the tail goes through the portable code,
// which rounds identically.
__attribute__((target("avx,f16c"))) void half_to_float_f16c(float* out, const std::uint16_t* in,
                                                            std::size_t count) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  for (; i < count; ++i) out[i] = half_to_float(in[i]);
}

__attribute__((target("avx,f16c"))) void float_to_half_f16c(std::uint16_t* out, const float* in,
                                                            std::size_t count) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < count; ++i) out[i] = float_to_half(in[i]);
}

#else

bool f16c_available() noexcept { return false; }

void half_to_float_f16c(float* out, const std::uint16_t* in, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) out[i] = half_to_float(in[i]);
}

void float_to_half_f16c(std::uint16_t* out, const float* in, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) out[i] = float_to_half(in[i]);
}

#endif

}  // namespace rcoll::collectives
