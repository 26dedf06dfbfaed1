#include "transport/tcp/poller.hpp"

#include <cerrno>
#include <ctime>

#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::transport::tcp {

Poller::Poller() : fd_(::epoll_create1(EPOLL_CLOEXEC)) {
  if (!fd_) throw IoError(-1, -1, "tcp transport: epoll_create1", net::errno_text(errno));
}

void Poller::control(int op, int fd, std::uint64_t key, bool want_write) {
  epoll_event event{};
  event.events = EPOLLIN | (want_write ? EPOLLOUT : 0u);
  event.data.u64 = key;
  if (::epoll_ctl(fd_.get(), op, fd, &event) != 0)
    throw IoError(-1, -1, "tcp transport: epoll_ctl", net::errno_text(errno));
}

void Poller::add(int fd, std::uint64_t key, bool want_write) { control(EPOLL_CTL_ADD, fd, key, want_write); }
void Poller::modify(int fd, std::uint64_t key, bool want_write) { control(EPOLL_CTL_MOD, fd, key, want_write); }

void Poller::remove(int fd) noexcept {
  epoll_event unused{};
  ::epoll_ctl(fd_.get(), EPOLL_CTL_DEL, fd, &unused);
}

int Poller::wait(epoll_event* events, int max_events, std::chrono::microseconds timeout) {
  int n;
  if (timeout.count() <= 0) {
    n = ::epoll_wait(fd_.get(), events, max_events, 0);
  } else {
    // epoll_pwait2 takes a timespec, so a short sleep is not rounded to a millisecond.
    timespec ts{static_cast<time_t>(timeout.count() / 1000000), static_cast<long>(timeout.count() % 1000000) * 1000};
    n = ::epoll_pwait2(fd_.get(), events, max_events, &ts, nullptr);
    if (n < 0 && errno == ENOSYS) {
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count();
      n = ::epoll_wait(fd_.get(), events, max_events, static_cast<int>(ms));
    }
  }
  if (n >= 0) return n;
  if (errno == EINTR) return 0;
  throw IoError(-1, -1, "tcp transport: epoll_wait", net::errno_text(errno));
}

}  // namespace rcoll::transport::tcp
