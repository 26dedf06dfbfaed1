// Storage for unexpected eager payloads (TCP and RDMA peers). Reusing blocks
// keeps a stream of unexpected messages from paying malloc, zero-fill and
// fresh page faults for every one, a large share of a receive's time, and
// pooled blocks sit on the process's memory node like the library's other
// buffers.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "topology/placed_buffer.hpp"

namespace rcoll::transport {

class BufferPool {
 public:
  // Uninitialised bytes: a pooled block on the process's memory node
  // (src/topology), or a small one from malloc.
  class Block {
   public:
    Block() = default;
    std::byte* get() const noexcept { return placed_ ? placed_.get() : small_.get(); }
    explicit operator bool() const noexcept { return get() != nullptr; }

   private:
    friend class BufferPool;
    std::unique_ptr<std::byte[]> small_;
    topology::PlacedBuffer placed_;
  };

  // Blocks of `block_bytes`; at most `max_kept` idle blocks are kept.
  BufferPool(std::size_t block_bytes, std::size_t max_kept) : block_bytes_(block_bytes), max_kept_(max_kept) {}

  // A block of at least `bytes` (uninitialised). Give it back with put().
  // Small sizes come straight from malloc, which serves them cheaply, so a
  // queue of tiny messages does not hold a full block each.
  Block take(std::size_t bytes) {
    Block block;
    if (!pooled(bytes)) {
      block.small_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
    } else if (idle_.empty()) {
      block.placed_ = topology::PlacedBuffer(block_bytes_);
    } else {
      block = std::move(idle_.back());
      idle_.pop_back();
    }
    return block;
  }
  // A block holding a copy of the `bytes` bytes at `data`.
  Block copy(const std::byte* data, std::size_t bytes) {
    Block block = take(bytes);
    if (bytes > 0) std::memcpy(block.get(), data, bytes);
    return block;
  }
  // `bytes`: the size it was taken for.
  void put(Block block, std::size_t bytes) {
    if (block && pooled(bytes) && idle_.size() < max_kept_) idle_.push_back(std::move(block));
  }

 private:
  static constexpr std::size_t small_bytes = 4096;
  bool pooled(std::size_t bytes) const noexcept { return bytes > small_bytes && bytes <= block_bytes_; }

  std::size_t block_bytes_;
  std::size_t max_kept_;
  std::vector<Block> idle_;
};

}  // namespace rcoll::transport
