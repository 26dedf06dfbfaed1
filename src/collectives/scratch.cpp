#include "collectives/scratch.hpp"

#include <utility>

#include "topology/memory_node.hpp"

namespace rcoll::collectives {
namespace {

// Sizes are rounded up so that slowly growing requests do not reallocate
// on every call.
constexpr std::size_t granule = std::size_t{64} << 10;

std::size_t rounded(std::size_t bytes) {
  return bytes >= Scratch::keep_limit ? bytes : (bytes + granule - 1) / granule * granule;
}

// One kept buffer per thread: a thread runs one collective at a time, and
// each collective holds one Scratch at a time.
thread_local topology::PlacedBuffer kept;

}  // namespace

Scratch::Scratch(std::size_t bytes) {
  if (bytes == 0) return;
  const int node = topology::process_memory_node();
  if (kept.size() >= bytes && kept.numa_node() == node) {
    buffer_ = std::move(kept);
  } else {
    buffer_ = topology::PlacedBuffer(rounded(bytes), node);
  }
}

Scratch::~Scratch() {
  if (!buffer_ || buffer_.size() > keep_limit || buffer_.numa_node() != topology::process_memory_node()) return;
  if (buffer_.size() > kept.size() || kept.numa_node() != buffer_.numa_node()) kept = std::move(buffer_);
}

}  // namespace rcoll::collectives
