// An owned hwloc bitmap: a set of PU (cpuset) or NUMA node (nodeset) OS
// indexes. Tests and callers use it without calling hwloc themselves.
#pragma once

#include <hwloc.h>

#include <string>
#include <string_view>

namespace rcoll::topology {

class Bitmap {
 public:
  Bitmap();                                // empty set
  explicit Bitmap(hwloc_const_bitmap_t source);  // copies `source`
  Bitmap(const Bitmap& other);
  Bitmap(Bitmap&& other) noexcept;
  Bitmap& operator=(Bitmap other) noexcept;
  ~Bitmap();

  // Parses hwloc's list syntax ("0-3,8"); throws rcoll::InvalidArgument.
  static Bitmap from_list(std::string_view list);

  // "0-3,8"; "" for the empty set.
  std::string to_list() const;
  int weight() const;     // number of members
  bool empty() const;
  int first() const;      // smallest member, -1 when empty
  bool contains(unsigned index) const;
  bool includes(const Bitmap& subset) const;

  hwloc_bitmap_t raw() { return bitmap_; }
  hwloc_const_bitmap_t raw() const { return bitmap_; }

  friend bool operator==(const Bitmap& a, const Bitmap& b);

 private:
  hwloc_bitmap_t bitmap_;
};

}  // namespace rcoll::topology
