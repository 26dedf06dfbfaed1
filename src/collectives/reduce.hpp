// Element-wise reduction kernels for every DataType x ReduceOp.
//
// Semantics: integers wrap (two's complement) on overflow; min/max propagate
// NaN; float16/bfloat16 are combined in float32 and rounded once, to nearest
// even. The result of one call depends only on its inputs (no reassociation),
// so every rank that combines the same operands in the same order gets
// bitwise the same result.
#pragma once

#include <cstddef>

#include "rcoll/types.hpp"

namespace rcoll::collectives {

// inout[i] = inout[i] op in[i] for i < count. The buffers must not overlap.
void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op);

// out[i] = a[i] op b[i] for i < count. `out` may be `a` or `b` (the same
// pointer) or overlap neither; `a` and `b` may be anything.
void reduce(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op);

}  // namespace rcoll::collectives
