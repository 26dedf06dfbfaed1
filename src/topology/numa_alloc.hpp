// Memory bound to a NUMA node of this machine.
//
// allocate_on_node() is the one place that asks hwloc for node-bound pages;
// NumaBuffer (strict: for measurements and tests that must know where pages
// are), PlacedBuffer (the library's own buffers) and rcoll::alloc (users)
// are built on it. Where binding is not available (no NUMA support, a node
// index this machine lacks, or no node asked for) it falls back to a plain
// page-aligned allocation whose pages are placed on first touch, and says
// so; it never fails for placement reasons, only with std::bad_alloc when
// out of memory.
#pragma once

#include <cstddef>
#include <string>

#include "topology/bitmap.hpp"
#include "topology/topology.hpp"

namespace rcoll::topology {

// strict: pages come from that node only (Linux MPOL_BIND); the kernel
// fails (OOM) rather than place them elsewhere. preferred: pages come from
// that node while it has free memory, else from another (MPOL_PREFERRED):
// placement never fails a job.
enum class Binding { strict, preferred };

struct NodeAllocation {
  void* data = nullptr;  // hwloc memory: release with hwloc_free(topology, data, bytes)
  bool bound = false;    // the node binding was applied
  std::string reason;    // why not, when !bound ("... : first-touch placement")
};

// `bytes` > 0. numa_node: OS index, -1 for no preference. `topology` must
// describe this machine. Throws std::bad_alloc when out of memory.
NodeAllocation allocate_on_node(const Topology& topology, std::size_t bytes, int numa_node, Binding binding);

// True when this machine's topology can allocate node-bound memory.
bool can_bind_memory(const Topology& topology);

class NumaBuffer {
 public:
  NumaBuffer() = default;
  // Strictly bound to numa_node (OS index, or -1 for no preference).
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

}  // namespace rcoll::topology
