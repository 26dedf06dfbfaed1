// The kernel send buffer of each TCP peer socket.
//
// Left to autotuning, Linux grows a socket's send buffer to 4 MiB, so a
// large message is queued in the kernel all at once and copied out of it
// long after it was copied in (likely out of cache by then; unproven here).
// A 1 MiB buffer bounds the bytes queued. Measured over loopback
// (docs/PERFORMANCE.md, "The TCP send buffer"): ping-pong from 1 to 16 MiB
// took 35-44 % less time, 2-rank allreduce from 2 to 16 MiB 15-25 % less;
// 4-rank bcast at 256 KiB 30-45 % more. A buffer smaller than about 1 MiB
// was slower than autotuning, so where net.core.wmem_max caps SO_SNDBUF
// below the size asked, the socket keeps autotuning instead.
//
// RCOLL_TCP_SNDBUF: the buffer in bytes (K/M/G suffixes), as the kernel
// reports it (twice SO_SNDBUF's argument); 0 keeps autotuning. Default 1M.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace rcoll::transport::tcp {

struct SendBuffer {
  static constexpr std::size_t default_bytes = std::size_t{1} << 20;

  std::size_t bytes = 0;  // the buffer to set; 0: leave the kernel's autotuning
  std::string reason;     // why, for the log

  // `requested`: RCOLL_TCP_SNDBUF's value (nullopt: unset); `wmem_max`:
  // net.core.wmem_max (nullopt: unreadable). Pure, for tests.
  static SendBuffer choose(std::optional<std::size_t> requested, std::optional<std::size_t> wmem_max);
  // From the environment and /proc/sys/net/core/wmem_max. Throws
  // InvalidArgument when RCOLL_TCP_SNDBUF is not a byte count.
  static SendBuffer from_environment();

  // Sets the buffer on `fd` (nothing when bytes is 0). Returns the errno of
  // a failed setsockopt, else 0; the socket works either way.
  int apply(int fd) const noexcept;
};

}  // namespace rcoll::transport::tcp
