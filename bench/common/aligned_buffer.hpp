// Page-aligned message buffers for the benchmarks.
#pragma once

#include <cstddef>
#include <memory>

namespace rcoll::bench {

// Page-aligned, uninitialised bytes (RDMA registration and DMA prefer
// page-aligned buffers). Owns its memory.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t bytes);
  std::byte* data() noexcept { return data_.get(); }
  const std::byte* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }

 private:
  struct Free {
    void operator()(std::byte* p) const noexcept;
  };
  std::unique_ptr<std::byte, Free> data_;
  std::size_t size_ = 0;
};

}  // namespace rcoll::bench
