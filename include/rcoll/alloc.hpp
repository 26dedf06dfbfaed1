// Memory for collective buffers on the NUMA node rcoll chose for this
// process: the node local to the NIC it communicates through, so that the
// NIC's DMA and the reductions touch the same node's memory.
//
// The node is chosen when Comm::from_env() applies placement (rcoll-run
// --bind; README "Placement"): the NIC's node where hwloc knows it, else
// the node of the CPUs the rank is bound to. Before that, in a process that
// creates its communicators with Comm::create, on a single-node machine, or
// where the system cannot bind memory, there is no choice and memory gets
// the default placement (its pages land on the node of the CPU that first
// writes them).
//
// Placement is a preference, never a failure: pages come from the node
// while it has free memory, else from another node. Every function here is
// thread-safe. Each allocation maps whole pages: this is for large,
// long-lived buffers (what you pass to allreduce/bcast), not small objects.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>

namespace rcoll {

// The OS index of the NUMA node rcoll places its own buffers on in this
// process (as numactl and hwloc number them), or -1 when it has no
// preference (default placement).
int preferred_numa_node() noexcept;

// `bytes` of uninitialised, page-aligned memory on preferred_numa_node().
// Never returns nullptr: throws std::bad_alloc when out of memory.
// bytes == 0 returns a unique pointer that must not be dereferenced and is
// freed like any other (free(p, 0)).
void* alloc(std::size_t bytes);
// The same on `numa_node` (OS index). -1, or a node this machine does not
// have, means default placement.
void* alloc(std::size_t bytes, int numa_node);

// Releases memory from rcoll::alloc. `bytes` must be the size it was
// allocated with. free(nullptr, any size) does nothing.
void free(void* p, std::size_t bytes) noexcept;

// A standard allocator over rcoll::alloc, e.g.
//   std::vector<float, rcoll::Allocator<float>> grads(n);
// Default-constructed, it allocates on preferred_numa_node() as it is at
// each allocation; Allocator<T>(node) always allocates on `node`. All
// instances are interchangeable (memory from one may be freed by any other:
// freeing does not depend on the node), so they compare equal.
template <typename T>
class Allocator {
 public:
  using value_type = T;
  using is_always_equal = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;

  static_assert(alignof(T) <= 4096, "rcoll::Allocator gives page alignment, no more");

  Allocator() noexcept = default;
  explicit Allocator(int numa_node) noexcept : node_(numa_node), fixed_(true) {}
  template <typename U>
  Allocator(const Allocator<U>& other) noexcept : node_(other.node_), fixed_(other.fixed_) {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(rcoll::alloc(n * sizeof(T), numa_node()));
  }
  void deallocate(T* p, std::size_t n) noexcept { rcoll::free(p, n * sizeof(T)); }

  // The node the next allocation goes to (-1: default placement).
  int numa_node() const noexcept { return fixed_ ? node_ : preferred_numa_node(); }

  template <typename U>
  bool operator==(const Allocator<U>&) const noexcept { return true; }

 private:
  template <typename U>
  friend class Allocator;

  int node_ = -1;
  bool fixed_ = false;  // false: follow preferred_numa_node()
};

}  // namespace rcoll
