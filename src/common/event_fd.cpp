#include "common/event_fd.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "rcoll/errors.hpp"

namespace rcoll {

EventFd::EventFd(int rank) : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (!fd_) throw IoError(rank, -1, "creating the transport's wake-up (eventfd)", std::strerror(errno));
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

void EventFd::drain() noexcept {
  signalled_.store(false, std::memory_order_release);
  std::uint64_t count = 0;
  [[maybe_unused]] const auto read = ::read(fd_.get(), &count, sizeof count);
}

}  // namespace rcoll
