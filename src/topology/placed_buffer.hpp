// Memory the library owns for communication (RDMA bounce rings, TCP
// staging, reduction scratch), placed on the process's memory node
// (memory_node.hpp), and the raw allocation behind rcoll::alloc.
//
// Placement here is a preference, never a failure: pages come from the node
// while it has free memory (hwloc BIND without STRICT, Linux
// MPOL_PREFERRED); with no node chosen, or where hwloc cannot bind, the
// memory is plain and page-aligned and its pages land where they are first
// touched. Out of memory is std::bad_alloc, as for operator new.
#pragma once

#include <cstddef>

namespace rcoll::topology {

class PlacedBuffer {
 public:
  PlacedBuffer() = default;
  // `bytes` on process_memory_node() as it is at this call.
  explicit PlacedBuffer(std::size_t bytes);
  // `bytes` on `numa_node` (OS index; -1: no preference, plain heap memory).
  PlacedBuffer(std::size_t bytes, int numa_node);
  PlacedBuffer(PlacedBuffer&& other) noexcept;
  PlacedBuffer& operator=(PlacedBuffer&& other) noexcept;
  PlacedBuffer(const PlacedBuffer&) = delete;
  PlacedBuffer& operator=(const PlacedBuffer&) = delete;
  ~PlacedBuffer();

  // Page-aligned, uninitialised; nullptr for a buffer of 0 bytes.
  std::byte* get() const noexcept { return data_; }
  std::byte* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  explicit operator bool() const noexcept { return data_ != nullptr; }
  int numa_node() const noexcept { return node_; }  // the node asked for

 private:
  void release() noexcept;

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  int node_ = -1;
  bool from_hwloc_ = false;  // hwloc_free, else std::free
};

// Raw, for rcoll::alloc: page-aligned, never nullptr (a 0-byte request gets
// a unique page). Free with placed_free and the same byte count.
void* placed_allocate(std::size_t bytes, int numa_node);
void placed_free(void* address, std::size_t bytes) noexcept;

}  // namespace rcoll::topology
