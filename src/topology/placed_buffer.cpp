#include "topology/placed_buffer.hpp"

#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <new>
#include <utility>

#include "common/log.hpp"
#include "topology/memory_node.hpp"
#include "topology/numa_alloc.hpp"
#include "topology/topology.hpp"

namespace rcoll::topology {
namespace {

std::size_t page_size() {
  static const std::size_t page = [] {
    long size = ::sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<std::size_t>(size) : std::size_t{4096};
  }();
  return page;
}

std::size_t whole_pages(std::size_t bytes) {
  std::size_t page = page_size();
  if (bytes > static_cast<std::size_t>(-1) - page) throw std::bad_alloc();
  return (bytes + page - 1) / page * page;
}

// This machine's topology, or nullptr when hwloc cannot discover it (then
// every allocation is plain memory; asked once, so that an allocation and
// its release always take the same path).
const Topology* machine() noexcept {
  static const Topology* const topology = []() -> const Topology* {
    try {
      return &this_machine();
    } catch (const std::exception& error) {
      log::warn("placement: no topology ({}): buffers use default allocation", error.what());
      return nullptr;
    }
  }();
  return topology;
}

void* heap_pages(std::size_t bytes) {
  void* data = std::aligned_alloc(page_size(), whole_pages(bytes == 0 ? 1 : bytes));
  if (data == nullptr) throw std::bad_alloc();
  return data;
}

}  // namespace

PlacedBuffer::PlacedBuffer(std::size_t bytes) : PlacedBuffer(bytes, process_memory_node()) {}

// Without a node, heap pages: malloc keeps and reuses freed memory, where a
// fresh mapping would pay page faults on every allocation.
PlacedBuffer::PlacedBuffer(std::size_t bytes, int numa_node) : size_(bytes), node_(numa_node) {
  if (bytes == 0) return;
  const Topology* topology = machine();
  if (numa_node < 0 || topology == nullptr) {
    data_ = static_cast<std::byte*>(heap_pages(bytes));
    return;
  }
  data_ = static_cast<std::byte*>(allocate_on_node(*topology, bytes, numa_node, Binding::preferred).data);
  from_hwloc_ = true;
}

PlacedBuffer::PlacedBuffer(PlacedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      node_(other.node_),
      from_hwloc_(other.from_hwloc_) {}

PlacedBuffer& PlacedBuffer::operator=(PlacedBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    node_ = other.node_;
    from_hwloc_ = other.from_hwloc_;
  }
  return *this;
}

PlacedBuffer::~PlacedBuffer() { release(); }

void PlacedBuffer::release() noexcept {
  if (data_ == nullptr) return;
  if (from_hwloc_) {
    hwloc_free(machine()->get(), data_, size_);
  } else {
    std::free(data_);
  }
  data_ = nullptr;
  size_ = 0;
}

// Always hwloc memory when there is a topology (a mapping of whole pages),
// so that placed_free needs nothing but the address and size.
void* placed_allocate(std::size_t bytes, int numa_node) {
  const Topology* topology = machine();
  if (topology == nullptr) return heap_pages(bytes);
  return allocate_on_node(*topology, bytes == 0 ? 1 : bytes, numa_node, Binding::preferred).data;
}

void placed_free(void* address, std::size_t bytes) noexcept {
  if (address == nullptr) return;
  const Topology* topology = machine();
  if (topology == nullptr) {
    std::free(address);
  } else {
    hwloc_free(topology->get(), address, bytes == 0 ? 1 : bytes);
  }
}

}  // namespace rcoll::topology
