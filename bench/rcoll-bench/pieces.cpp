#include "pieces.hpp"

#include <algorithm>

#include "element.hpp"

namespace rcoll::bench {
namespace {

template <typename T>
std::vector<T> to_type(const Period& values) {
  std::vector<T> out(values.size());
  std::transform(values.begin(), values.end(), out.begin(), from_int<T>);
  return out;
}

}  // namespace

void write_pieces(DataType type, const Pieces& pieces, void* buf) {
  visit_dtype(type, [&]<typename T>(std::type_identity<T>) {
    for (const Piece& piece : pieces) {
      const auto pattern = to_type<T>(piece.period);
      T* out = static_cast<T*>(buf) + piece.offset;
      for (std::size_t i = 0; i < piece.count; ++i) out[i] = pattern[(piece.phase + i) % pattern.size()];
    }
  });
}

std::size_t count_mismatches(DataType type, const Pieces& pieces, const void* buf) {
  return visit_dtype(type, [&]<typename T>(std::type_identity<T>) {
    std::size_t wrong = 0;
    for (const Piece& piece : pieces) {
      const auto pattern = to_type<T>(piece.period);
      const T* in = static_cast<const T*>(buf) + piece.offset;
      for (std::size_t i = 0; i < piece.count; ++i)
        wrong += same_value(in[i], pattern[(piece.phase + i) % pattern.size()]) ? 0 : 1;
    }
    return wrong;
  });
}

std::size_t extent(const Pieces& pieces) {
  std::size_t end = 0;
  for (const Piece& piece : pieces) end = std::max(end, piece.offset + piece.count);
  return end;
}

std::vector<std::int64_t> to_integers(const Pieces& pieces, std::size_t size, std::int64_t fill) {
  std::vector<std::int64_t> out(size, fill);
  for (const Piece& piece : pieces)
    for (std::size_t i = 0; i < piece.count; ++i)
      out.at(piece.offset + i) = piece.period[(piece.phase + i) % piece.period.size()];
  return out;
}

}  // namespace rcoll::bench
