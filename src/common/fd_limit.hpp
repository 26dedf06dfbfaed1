// The process's open-file limit, raised where a listener needs more
// descriptors than the usual soft default of 1024: the bootstrap service
// holds one per rank plus the pending handshakes it allows (world size +
// 256), a TCP transport one per peer plus as many pending ones.
#pragma once

#include <cstddef>
#include <string_view>

namespace rcoll {

// Raises the soft RLIMIT_NOFILE to the hard limit (capped at 2^20) if it is
// below `needed`: all of it rather than `needed`, since one process may
// hold several listeners (rank 0 hosting the bootstrap service has its
// transport too). Returns the soft limit in force afterwards; logs a warning
// naming `who` when that is still below `needed` (connections beyond it
// are refused, and the listener sheds its oldest pending ones to make room).
std::size_t ensure_fd_limit(std::size_t needed, std::string_view who);

}  // namespace rcoll
