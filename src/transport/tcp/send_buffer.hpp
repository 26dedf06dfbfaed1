// The kernel send buffer of each TCP peer socket, chosen per frame.
//
// Left to autotuning, Linux grows a socket's send buffer to 4 MiB. Two
// kinds of traffic want different sizes (docs/results/PERFORMANCE_LOG.md, "The TCP
// send buffer"):
// - A large payload (a rendezvous DATA frame) wants little queued in the
//   kernel: with all of it queued at once it is copied out long after it
//   was copied in, out of the caches.
// - A run of credited EAGER frames (a bcast root sending back to back)
//   wants the buffer to hold the whole credit window, so the sender does
//   not stall on a full socket.
// So the buffer is `bytes` while a DATA frame above the free eager limit is
// written and `eager_bytes` while a credited EAGER frame is; small frames
// leave it as it is. Setting SO_SNDBUF ends autotuning for the socket, so
// where net.core.wmem_max caps SO_SNDBUF below `bytes` (as stock Debian 12
// does; a buffer that small is slower than autotuning) the socket is left
// alone.
//
// RCOLL_TCP_SNDBUF: `bytes` (K/M/G suffixes), as the kernel reports it
// (twice SO_SNDBUF's argument); 0 keeps autotuning. Default 512K: 1 MiB
// was chosen while loopback connections were still paced by BBR
// (congestion_control.hpp); unpaced, two 1 MiB queues per core (a rank's
// own sends and its peer's) no longer stay in the 2 MiB L2, and 2-8 MiB
// exchanges (allgather, alltoall) took 1.2-1.7 times as long as with
// 512 KiB (docs/results/2026-12-03-collective-set.md, "Congestion control").
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "transport/tcp/wire.hpp"

namespace rcoll::transport::tcp {

struct SendBuffer {
  static constexpr std::size_t default_bytes = std::size_t{512} << 10;
  // For credited EAGER frames: the largest credit window (4 MiB) with the
  // kernel's per-segment overhead, where wmem_max allows it.
  static constexpr std::size_t default_eager_bytes = std::size_t{8} << 20;

  std::size_t bytes = 0;        // while large DATA frames go; 0: leave the kernel's autotuning
  std::size_t eager_bytes = 0;  // while credited EAGER frames go; 0 when bytes is 0
  std::string reason;           // why, for the log

  // `requested`: RCOLL_TCP_SNDBUF's value (nullopt: unset); `wmem_max`:
  // net.core.wmem_max (nullopt: unreadable). Pure, for tests.
  static SendBuffer choose(std::optional<std::size_t> requested, std::optional<std::size_t> wmem_max);
  // choose() with this host's /proc/sys/net/core/wmem_max.
  static SendBuffer for_this_host(std::optional<std::size_t> requested);

  // The size to set before writing the frame `next`; 0: keep the current one.
  std::size_t size_for(const FrameHeader& next) const noexcept;

  // Sets `size` bytes (as the kernel reports them) on `fd`. Returns the
  // errno of a failed setsockopt, else 0; the socket works either way.
  static int apply(int fd, std::size_t size) noexcept;
};

}  // namespace rcoll::transport::tcp
