// Which physical pages back a virtual range, from /proc/self/pagemap.
//
// A memory registration pins the pages that backed its range when it was
// made. If the application frees the buffer and a later allocation lands at
// the same address (munmap + mmap, madvise(DONTNEED), a copy-on-write
// break), the address now maps other pages and the old registration is
// stale: the device would read or write the old, invisible pages. The MR
// cache therefore only reuses a registration whose range still maps exactly
// the page frames it pinned. The kernel shows page frame numbers only to
// processes with CAP_SYS_ADMIN; elsewhere available() is false and the cache
// does not keep registrations of unregistered user memory at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/fd.hpp"

namespace rcoll::transport::rdma {

// Page frames of a range, as runs of consecutive frame numbers.
struct PageRun {
  std::uint64_t first_frame = 0;
  std::uint64_t count = 0;
  bool operator==(const PageRun&) const = default;
};
using PageFrames = std::vector<PageRun>;

class PageIdentity {
 public:
  PageIdentity();

  bool available() const noexcept { return available_; }
  // The frames behind [addr, addr + bytes), or nullopt if unknown (not
  // available, a page not present, a read error).
  std::optional<PageFrames> frames(const void* addr, std::size_t bytes) const;

 private:
  UniqueFd pagemap_;
  std::size_t page_size_ = 4096;
  bool available_ = false;
};

}  // namespace rcoll::transport::rdma
