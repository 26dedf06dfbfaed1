// Element types and reduction operators of the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rcoll {

// IEEE 754 binary16, stored as raw bits. Reductions convert to float32,
// combine, and round once back to binary16 (round to nearest even).
struct float16_t {
  std::uint16_t bits = 0;
};

// bfloat16 (the upper half of a float32), stored as raw bits; reduced like float16_t.
struct bfloat16_t {
  std::uint16_t bits = 0;
};

enum class DataType : std::uint8_t {
  int8, uint8, int32, uint32, int64, uint64, float16, bfloat16, float32, float64,
};

enum class ReduceOp : std::uint8_t { sum, prod, min, max };

// Size in bytes of one element; 0 for a value outside the enum.
std::size_t dtype_size(DataType type) noexcept;
std::string_view to_string(DataType type) noexcept;
std::string_view to_string(ReduceOp op) noexcept;

// Maps a C++ element type to its DataType (compile error for other types).
template <typename T> struct dtype_of;
template <> struct dtype_of<std::int8_t> { static constexpr DataType value = DataType::int8; };
template <> struct dtype_of<std::uint8_t> { static constexpr DataType value = DataType::uint8; };
template <> struct dtype_of<std::int32_t> { static constexpr DataType value = DataType::int32; };
template <> struct dtype_of<std::uint32_t> { static constexpr DataType value = DataType::uint32; };
template <> struct dtype_of<std::int64_t> { static constexpr DataType value = DataType::int64; };
template <> struct dtype_of<std::uint64_t> { static constexpr DataType value = DataType::uint64; };
template <> struct dtype_of<float16_t> { static constexpr DataType value = DataType::float16; };
template <> struct dtype_of<bfloat16_t> { static constexpr DataType value = DataType::bfloat16; };
template <> struct dtype_of<float> { static constexpr DataType value = DataType::float32; };
template <> struct dtype_of<double> { static constexpr DataType value = DataType::float64; };
template <typename T> inline constexpr DataType dtype_of_v = dtype_of<T>::value;

}  // namespace rcoll
