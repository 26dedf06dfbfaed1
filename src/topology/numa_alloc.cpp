#include "topology/numa_alloc.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

namespace rcoll::topology {
namespace {

struct Allocation {
  void* data = nullptr;
  bool bound = false;
  std::string reason;
};

// STRICT so that hwloc reports when it cannot bind, instead of silently
// handing out unbound memory; the fallback is then ours and explained.
Allocation allocate(const Topology& topology, std::size_t bytes, int numa_node) {
  Allocation result;
  if (bytes == 0) return result;
  if (numa_node < 0) {
    result.reason = "no NUMA node asked for: first-touch placement";
  } else if (hwloc_get_numanode_obj_by_os_index(topology.get(), static_cast<unsigned>(numa_node)) == nullptr) {
    result.reason = "no NUMA node " + std::to_string(numa_node) + " in the topology: first-touch placement";
  } else {
    Bitmap nodes;
    hwloc_bitmap_only(nodes.raw(), static_cast<unsigned>(numa_node));
    result.data = hwloc_alloc_membind(topology.get(), bytes, nodes.raw(), HWLOC_MEMBIND_BIND,
                                      HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT);
    if (result.data != nullptr) {
      result.bound = true;
      return result;
    }
    if (errno == ENOMEM) throw std::bad_alloc();
    result.reason = std::string("cannot bind memory to NUMA node ") + std::to_string(numa_node) + " (" +
                    std::strerror(errno) + "): first-touch placement";
  }
  result.data = hwloc_alloc(topology.get(), bytes);
  if (result.data == nullptr) throw std::bad_alloc();
  return result;
}

}  // namespace

NumaBuffer::NumaBuffer(const Topology& topology, std::size_t bytes, int numa_node)
    : topology_(&topology), size_(bytes), node_(numa_node) {
  Allocation allocation = allocate(topology, bytes, numa_node);
  data_ = allocation.data;
  bound_ = allocation.bound;
  reason_ = std::move(allocation.reason);
}

NumaBuffer::NumaBuffer(NumaBuffer&& other) noexcept
    : topology_(other.topology_),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      node_(other.node_),
      bound_(other.bound_),
      reason_(std::move(other.reason_)) {}

NumaBuffer& NumaBuffer::operator=(NumaBuffer&& other) noexcept {
  if (this != &other) {
    release();
    topology_ = other.topology_;
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    node_ = other.node_;
    bound_ = other.bound_;
    reason_ = std::move(other.reason_);
  }
  return *this;
}

NumaBuffer::~NumaBuffer() { release(); }

void NumaBuffer::release() noexcept {
  if (data_ != nullptr) hwloc_free(topology_->get(), data_, size_);
  data_ = nullptr;
  size_ = 0;
}

Bitmap memory_location(const Topology& topology, const void* address, std::size_t bytes) {
  Bitmap nodes;
  if (hwloc_get_area_memlocation(topology.get(), address, bytes, nodes.raw(), HWLOC_MEMBIND_BYNODESET) != 0) {
    return Bitmap();
  }
  return nodes;
}

void* numa_allocate(std::size_t bytes, int numa_node) {
  // One byte at least, so that a zero-sized request still gets a unique,
  // freeable pointer as allocators must return.
  return allocate(this_machine(), bytes == 0 ? 1 : bytes, numa_node).data;
}

void numa_deallocate(void* address, std::size_t bytes) noexcept {
  if (address != nullptr) hwloc_free(this_machine().get(), address, bytes == 0 ? 1 : bytes);
}

}  // namespace rcoll::topology
