// Memory bound to a NUMA node of this machine.
//
// NumaBuffer owns page-aligned memory allocated with hwloc_alloc_membind
// (policy BIND: pages come from that node only). Where binding is not
// available (no NUMA support, a node index this machine lacks, or no node
// asked for) it falls back to a plain page-aligned allocation whose pages
// are placed on first touch, and says so in fallback_reason(); it never
// fails for placement reasons, only with std::bad_alloc when out of memory.
#pragma once

#include <cstddef>
#include <new>
#include <string>

#include "topology/bitmap.hpp"
#include "topology/topology.hpp"

namespace rcoll::topology {

class NumaBuffer {
 public:
  NumaBuffer() = default;
  // numa_node: OS index of the node, or -1 for no preference.
  // `topology` must outlive the buffer and describe this machine.
  NumaBuffer(const Topology& topology, std::size_t bytes, int numa_node);
  NumaBuffer(NumaBuffer&& other) noexcept;
  NumaBuffer& operator=(NumaBuffer&& other) noexcept;
  NumaBuffer(const NumaBuffer&) = delete;
  NumaBuffer& operator=(const NumaBuffer&) = delete;
  ~NumaBuffer();

  void* data() const { return data_; }
  std::size_t size() const { return size_; }
  int numa_node() const { return node_; }   // the node asked for
  bool bound() const { return bound_; }     // true when the BIND policy was applied
  const std::string& fallback_reason() const { return reason_; }

 private:
  void release() noexcept;

  const Topology* topology_ = nullptr;
  void* data_ = nullptr;
  std::size_t size_ = 0;
  int node_ = -1;
  bool bound_ = false;
  std::string reason_;
};

// The NUMA nodes holding the (touched) pages of [address, address+bytes).
// Empty when the system cannot tell.
Bitmap memory_location(const Topology& topology, const void* address, std::size_t bytes);

// Untyped allocation on this_machine() for allocators and a future public
// API: never returns nullptr (throws std::bad_alloc); numa_node -1 means no
// preference. Free with numa_deallocate and the same byte count.
void* numa_allocate(std::size_t bytes, int numa_node);
void numa_deallocate(void* address, std::size_t bytes) noexcept;

// A standard allocator whose memory sits on one NUMA node of this machine,
// e.g. std::vector<float, NumaAllocator<float>> v(n, NumaAllocator<float>(1)).
template <typename T>
class NumaAllocator {
 public:
  using value_type = T;

  explicit NumaAllocator(int numa_node = -1) noexcept : node_(numa_node) {}
  template <typename U>
  NumaAllocator(const NumaAllocator<U>& other) noexcept : node_(other.numa_node()) {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(numa_allocate(n * sizeof(T), node_));
  }
  void deallocate(T* p, std::size_t n) noexcept { numa_deallocate(p, n * sizeof(T)); }
  int numa_node() const noexcept { return node_; }

  template <typename U>
  bool operator==(const NumaAllocator<U>& other) const noexcept { return node_ == other.numa_node(); }

 private:
  int node_;
};

}  // namespace rcoll::topology
