#include "collectives/reduce.hpp"

#include <cstdint>
#include <string>

#include "collectives/reduce_half.hpp"
#include "collectives/reduce_ops.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::collectives {
namespace {

// The three aliasing forms of one (type, op) pair, behind untyped pointers.
struct Kernels {
  void (*into)(void*, const void*, std::size_t);
  void (*into_reversed)(void*, const void*, std::size_t);
  void (*three)(void*, const void*, const void*, std::size_t);
};

template <typename T, template <typename> class Op>
Kernels kernels_for() {
  return {
      [](void* io, const void* in, std::size_t n) {
        ops::apply_into<T, Op<T>>(static_cast<T*>(io), static_cast<const T*>(in), n);
      },
      [](void* io, const void* in, std::size_t n) {
        ops::apply_into_reversed<T, Op<T>>(static_cast<T*>(io), static_cast<const T*>(in), n);
      },
      [](void* out, const void* a, const void* b, std::size_t n) {
        ops::apply3<T, Op<T>>(static_cast<T*>(out), static_cast<const T*>(a), static_cast<const T*>(b), n);
      },
  };
}

template <template <typename> class Op>
Kernels kernels_for_type(DataType type) {
  switch (type) {
    case DataType::int8: return kernels_for<std::int8_t, Op>();
    case DataType::uint8: return kernels_for<std::uint8_t, Op>();
    case DataType::int32: return kernels_for<std::int32_t, Op>();
    case DataType::uint32: return kernels_for<std::uint32_t, Op>();
    case DataType::int64: return kernels_for<std::int64_t, Op>();
    case DataType::uint64: return kernels_for<std::uint64_t, Op>();
    case DataType::float32: return kernels_for<float, Op>();
    case DataType::float64: return kernels_for<double, Op>();
    case DataType::float16: case DataType::bfloat16: break;
  }
  throw InvalidArgument("reduce: unsupported data type " + std::string(to_string(type)));
}

Kernels kernels(DataType type, ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return kernels_for_type<ops::Sum>(type);
    case ReduceOp::prod: return kernels_for_type<ops::Prod>(type);
    case ReduceOp::min: return kernels_for_type<ops::Min>(type);
    case ReduceOp::max: return kernels_for_type<ops::Max>(type);
  }
  throw InvalidArgument("reduce: unsupported operation " + std::string(to_string(op)));
}

bool is_half(DataType type, HalfFormat& format) {
  if (type == DataType::float16) format = HalfFormat::binary16;
  else if (type == DataType::bfloat16) format = HalfFormat::bfloat16;
  else return false;
  return true;
}

}  // namespace

void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op) {
  reduce(inout, inout, in, count, type, op);
}

void reduce(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op) {
  if (count == 0) return;
  if (HalfFormat format{}; is_half(type, format)) {
    reduce_half(static_cast<std::uint16_t*>(out), static_cast<const std::uint16_t*>(a),
                static_cast<const std::uint16_t*>(b), count, format, op);
    return;
  }
  const Kernels k = kernels(type, op);
  if (out == a)
    k.into(out, b, count);
  else if (out == b)
    k.into_reversed(out, a, count);
  else
    k.three(out, a, b, count);
}

}  // namespace rcoll::collectives
