#include "collectives/scratch.hpp"

#include <array>
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

// Two kept buffers per thread: a thread runs one collective at a time, and
// a collective holds at most two Scratch at a time (a reduce_scatter's
// partial sums inside reduce_scatter_gather's chunk, recursive halving's
// received halves beside its partial sums). With one kept buffer the
// second was a fresh mapping, and page faults, on every call.
thread_local std::array<topology::PlacedBuffer, 2> kept;

bool usable(const topology::PlacedBuffer& buffer, std::size_t bytes, int node) {
  return buffer && buffer.size() >= bytes && buffer.numa_node() == node;
}

}  // namespace

// Takes the smallest kept buffer that is large enough, else maps a new one.
Scratch::Scratch(std::size_t bytes) {
  if (bytes == 0) return;
  const int node = topology::process_memory_node();
  topology::PlacedBuffer* best = nullptr;
  for (auto& buffer : kept)
    if (usable(buffer, bytes, node) && (best == nullptr || buffer.size() < best->size())) best = &buffer;
  buffer_ = best != nullptr ? std::move(*best) : topology::PlacedBuffer(rounded(bytes), node);
}

// Goes back in place of an empty slot, or of the smallest kept buffer if
// it is larger (or the kept one sits on another node).
Scratch::~Scratch() {
  const int node = topology::process_memory_node();
  if (!buffer_ || buffer_.size() > keep_limit || buffer_.numa_node() != node) return;
  topology::PlacedBuffer* slot = &kept[0];
  for (auto& buffer : kept) {
    if (!buffer || buffer.numa_node() != node) {
      slot = &buffer;
      break;
    }
    if (buffer.size() < slot->size()) slot = &buffer;
  }
  if (!*slot || slot->numa_node() != node || buffer_.size() > slot->size()) *slot = std::move(buffer_);
}

}  // namespace rcoll::collectives
