// Reductions over 16-bit floats (IEEE binary16 and bfloat16).
#pragma once

#include <cstddef>
#include <cstdint>

#include "rcoll/types.hpp"

namespace rcoll::collectives {

enum class HalfFormat { binary16, bfloat16 };

// out[i] = a[i] op b[i], combined in float32 and rounded once to nearest
// even. Any of out, a, b may be the same pointer (each block of input is
// read before the block of output is written); partial overlap is not allowed.
void reduce_half(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b, std::size_t count,
                 HalfFormat format, ReduceOp op);

}  // namespace rcoll::collectives
