#include "transport/rdma/page_identity.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>

namespace rcoll::transport::rdma {
namespace {

// /proc/<pid>/pagemap: one 64-bit entry per virtual page; bit 63 = present,
// bits 0-54 = page frame number (zero unless CAP_SYS_ADMIN).
constexpr std::uint64_t present_bit = std::uint64_t(1) << 63;
constexpr std::uint64_t frame_mask = (std::uint64_t(1) << 55) - 1;
constexpr std::size_t batch = 512;

}  // namespace

PageIdentity::PageIdentity() : pagemap_(::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) {
  long size = sysconf(_SC_PAGESIZE);
  if (size > 0) page_size_ = static_cast<std::size_t>(size);
  if (!pagemap_) return;
  // Probe with a page that is certainly present: this object's own.
  volatile char probe = 1;
  available_ = true;
  auto frames_of_probe = frames(const_cast<const char*>(&probe), 1);
  available_ = frames_of_probe && !frames_of_probe->empty() && frames_of_probe->front().first_frame != 0;
}

std::optional<PageFrames> PageIdentity::frames(const void* addr, std::size_t bytes) const {
  if (!available_ || bytes == 0) return std::nullopt;
  auto first_page = reinterpret_cast<std::uintptr_t>(addr) / page_size_;
  auto last_page = (reinterpret_cast<std::uintptr_t>(addr) + bytes - 1) / page_size_;
  PageFrames runs;
  std::array<std::uint64_t, batch> entries;
  for (auto page = first_page; page <= last_page;) {
    std::size_t want = std::min<std::size_t>(batch, last_page - page + 1);
    ssize_t got = ::pread(pagemap_.get(), entries.data(), want * sizeof(std::uint64_t),
                          static_cast<off_t>(page * sizeof(std::uint64_t)));
    if (got != static_cast<ssize_t>(want * sizeof(std::uint64_t))) return std::nullopt;
    for (std::size_t i = 0; i < want; ++i) {
      if ((entries[i] & present_bit) == 0) return std::nullopt;
      std::uint64_t frame = entries[i] & frame_mask;
      if (frame == 0) return std::nullopt;
      if (!runs.empty() && runs.back().first_frame + runs.back().count == frame) ++runs.back().count;
      else runs.push_back({frame, 1});
    }
    page += want;
  }
  return runs;
}

}  // namespace rcoll::transport::rdma
