#include "topology/numa_alloc.hpp"

#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

namespace rcoll::topology {
namespace {

std::string first_touch(const std::string& why) { return why + ": first-touch placement"; }

}  // namespace

bool can_bind_memory(const Topology& topology) {
  const hwloc_topology_support* support = hwloc_topology_get_support(topology.get());
  return topology.is_this_system() && support != nullptr && support->membind != nullptr &&
         support->membind->alloc_membind != 0;
}

// STRICT, when asked, so that hwloc reports when it cannot bind instead of
// silently handing out unbound memory; the fallback is then ours and explained.
NodeAllocation allocate_on_node(const Topology& topology, std::size_t bytes, int numa_node, Binding binding) {
  NodeAllocation result;
  if (numa_node < 0) {
    result.reason = first_touch("no NUMA node asked for");
  } else if (hwloc_get_numanode_obj_by_os_index(topology.get(), static_cast<unsigned>(numa_node)) == nullptr) {
    result.reason = first_touch("no NUMA node " + std::to_string(numa_node) + " in the topology");
  } else if (!can_bind_memory(topology)) {
    result.reason = first_touch("this system cannot bind memory to NUMA nodes");
  } else {
    Bitmap nodes;
    hwloc_bitmap_only(nodes.raw(), static_cast<unsigned>(numa_node));
    int flags = HWLOC_MEMBIND_BYNODESET | (binding == Binding::strict ? HWLOC_MEMBIND_STRICT : 0);
    result.data = hwloc_alloc_membind(topology.get(), bytes, nodes.raw(), HWLOC_MEMBIND_BIND, flags);
    if (result.data != nullptr) {
      result.bound = true;
      return result;
    }
    if (errno == ENOMEM) throw std::bad_alloc();
    result.reason = first_touch("cannot bind memory to NUMA node " + std::to_string(numa_node) + " (" +
                                std::strerror(errno) + ")");
  }
  result.data = hwloc_alloc(topology.get(), bytes);
  if (result.data == nullptr) throw std::bad_alloc();
  return result;
}

NumaBuffer::NumaBuffer(const Topology& topology, std::size_t bytes, int numa_node)
    : topology_(&topology), size_(bytes), node_(numa_node) {
  if (bytes == 0) return;
  NodeAllocation allocation = allocate_on_node(topology, bytes, numa_node, Binding::strict);
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

}  // namespace rcoll::topology
