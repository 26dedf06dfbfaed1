#include "common/event_fd.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "rcoll/errors.hpp"

namespace rcoll {

EventFd::EventFd() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (!fd_) throw IoError(-1, -1, "eventfd", std::strerror(errno));
}

// The write, then the flag; drain() clears the flag, then reads. Whatever
// the interleaving with a drain, a signal either leaves the fd readable or
// the flag set, or came wholly before the drain (whose caller then looks
// at what the signal was for).
void EventFd::signal() noexcept {
  const std::uint64_t one = 1;
  // Fails only with EAGAIN when the counter is full, which still leaves the fd readable.
  [[maybe_unused]] const auto written = ::write(fd_.get(), &one, sizeof one);
  signalled_.store(true, std::memory_order_release);
}

bool EventFd::drain() noexcept {
  const bool was = signalled_.exchange(false, std::memory_order_acq_rel);
  std::uint64_t count = 0;
  const auto read = ::read(fd_.get(), &count, sizeof count);
  return was || (read > 0 && count > 0);
}

}  // namespace rcoll
