#include "common/fd_limit.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>

#include "common/log.hpp"

namespace rcoll {

std::size_t ensure_fd_limit(std::size_t needed, std::string_view who) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return needed;  // unknown: nothing to raise
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < needed) {
    rlimit raised = limit;
    constexpr rlim_t cap = rlim_t{1} << 20;
    raised.rlim_cur = std::max<rlim_t>(limit.rlim_cur, std::min<rlim_t>(limit.rlim_max, cap));
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  const std::size_t soft = limit.rlim_cur == RLIM_INFINITY ? needed : static_cast<std::size_t>(limit.rlim_cur);
  if (soft < needed)
    log::warn("{}: the open-file limit is {} (hard limit {}) but {} may be needed; raise it (ulimit -n) for jobs "
              "this large",
              who, soft, static_cast<unsigned long long>(limit.rlim_max), needed);
  return soft;
}

}  // namespace rcoll
