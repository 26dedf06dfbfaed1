// The public element types and operators (include/rcoll/types.hpp).
#include "rcoll/types.hpp"

namespace rcoll {

std::size_t dtype_size(DataType type) noexcept {
  switch (type) {
    case DataType::int8: case DataType::uint8: return 1;
    case DataType::float16: case DataType::bfloat16: return 2;
    case DataType::int32: case DataType::uint32: case DataType::float32: return 4;
    case DataType::int64: case DataType::uint64: case DataType::float64: return 8;
  }
  return 0;
}

std::string_view to_string(DataType type) noexcept {
  switch (type) {
    case DataType::int8: return "int8";
    case DataType::uint8: return "uint8";
    case DataType::int32: return "int32";
    case DataType::uint32: return "uint32";
    case DataType::int64: return "int64";
    case DataType::uint64: return "uint64";
    case DataType::float16: return "float16";
    case DataType::bfloat16: return "bfloat16";
    case DataType::float32: return "float32";
    case DataType::float64: return "float64";
  }
  return "invalid-dtype";
}

std::string_view to_string(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
  }
  return "invalid-op";
}

}  // namespace rcoll
