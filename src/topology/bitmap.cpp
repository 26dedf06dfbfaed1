#include "topology/bitmap.hpp"

#include <cstdlib>
#include <memory>
#include <new>
#include <utility>

#include "rcoll/errors.hpp"

namespace rcoll::topology {
namespace {

hwloc_bitmap_t checked(hwloc_bitmap_t bitmap) {
  if (bitmap == nullptr) throw std::bad_alloc();
  return bitmap;
}

}  // namespace

Bitmap::Bitmap() : bitmap_(checked(hwloc_bitmap_alloc())) {}

Bitmap::Bitmap(hwloc_const_bitmap_t source) : bitmap_(checked(hwloc_bitmap_dup(source))) {}

Bitmap::Bitmap(const Bitmap& other) : Bitmap(other.bitmap_) {}

// A moved-from Bitmap holds a fresh empty set, so that it stays usable.
Bitmap::Bitmap(Bitmap&& other) noexcept : bitmap_(std::exchange(other.bitmap_, hwloc_bitmap_alloc())) {}

Bitmap& Bitmap::operator=(Bitmap other) noexcept {
  std::swap(bitmap_, other.bitmap_);
  return *this;
}

Bitmap::~Bitmap() { hwloc_bitmap_free(bitmap_); }

Bitmap Bitmap::from_list(std::string_view list) {
  Bitmap result;
  std::string text(list);
  if (!text.empty() && hwloc_bitmap_list_sscanf(result.bitmap_, text.c_str()) != 0) {
    throw InvalidArgument("not a CPU/NUMA list: '" + text + "'");
  }
  return result;
}

std::string Bitmap::to_list() const {
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, bitmap_) < 0 || text == nullptr) throw std::bad_alloc();
  std::unique_ptr<char, decltype(&std::free)> owner(text, &std::free);
  return std::string(text);
}

int Bitmap::weight() const { return hwloc_bitmap_weight(bitmap_); }
bool Bitmap::empty() const { return hwloc_bitmap_iszero(bitmap_) != 0; }
int Bitmap::first() const { return hwloc_bitmap_first(bitmap_); }
bool Bitmap::contains(unsigned index) const { return hwloc_bitmap_isset(bitmap_, index) != 0; }
bool Bitmap::includes(const Bitmap& subset) const {
  return hwloc_bitmap_isincluded(subset.bitmap_, bitmap_) != 0;
}

bool operator==(const Bitmap& a, const Bitmap& b) { return hwloc_bitmap_isequal(a.bitmap_, b.bitmap_) != 0; }

}  // namespace rcoll::topology
