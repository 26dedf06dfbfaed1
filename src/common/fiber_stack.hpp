// The stacks fibers run on (fiber.hpp): anonymous mappings with an
// inaccessible guard page below, so that an overflow faults instead of
// writing over other memory. Only the pages a fiber touches cost memory
// (MAP_NORESERVE). A freed stack goes back to a small per-thread pool:
// creating a fiber per collective call would otherwise pay an mmap, an
// mprotect and a munmap every time.
#pragma once

#include <cstddef>

namespace rcoll::fiber {

class FiberStack {
 public:
  FiberStack() noexcept = default;
  // At least `bytes` usable, from this thread's pool when one fits.
  // Throws ResourceError when the mapping fails.
  explicit FiberStack(std::size_t bytes);
  ~FiberStack();  // back to this thread's pool, or unmapped
  FiberStack(FiberStack&& other) noexcept;
  FiberStack& operator=(FiberStack&& other) noexcept;
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;

  // The usable range: [bottom, bottom + size); the stack grows down from
  // its top, bottom + size.
  std::byte* bottom() const noexcept { return usable_; }
  std::size_t size() const noexcept { return usable_bytes_; }
  std::byte* top() const noexcept { return usable_ + usable_bytes_; }

 private:
  void release() noexcept;

  std::byte* mapping_ = nullptr;  // guard page first, then the usable range
  std::size_t mapping_bytes_ = 0;
  std::byte* usable_ = nullptr;
  std::size_t usable_bytes_ = 0;
};

}  // namespace rcoll::fiber
