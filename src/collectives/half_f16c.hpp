// Block conversions between binary16 and float32 on x86 F16C hardware
// (vcvtph2ps / vcvtps2ph), chosen at run time. They give bitwise the same
// results as half_float.hpp for every non-NaN value and the same binary16
// bits after a round trip for NaNs (the hardware quiets a signalling NaN
// already when widening), at about ten times the speed of the portable code.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rcoll::collectives {

// True when this CPU has F16C (and AVX); false on other architectures.
bool f16c_available() noexcept;

// Require f16c_available().
void half_to_float_f16c(float* out, const std::uint16_t* in, std::size_t count) noexcept;
void float_to_half_f16c(std::uint16_t* out, const float* in, std::size_t count) noexcept;

}  // namespace rcoll::collectives
