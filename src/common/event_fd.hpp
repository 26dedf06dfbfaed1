// EventFd: a wake-up that one thread signals and another sleeps on, as a
// file descriptor that poll/epoll can wait on beside sockets and
// completion channels (Transport::wake, comm/progress_thread.hpp).
//
// Contract: signal() is thread-safe and never blocks. After it the fd is
// readable or signalled() is true (a sleeper checks both) until drain(),
// which is for the thread that sleeps; a signal that comes between a
// sleeper's check and its poll still wakes that poll.
#pragma once

#include <atomic>

#include "common/fd.hpp"

namespace rcoll {

class EventFd {
 public:
  // IoError naming `rank` (whose transport it wakes) if eventfd(2) fails.
  explicit EventFd(int rank);
  EventFd(const EventFd&) = delete;
  EventFd& operator=(const EventFd&) = delete;

  int fd() const noexcept { return fd_.get(); }
  void signal() noexcept;
  // Cheap (no system call): for a loop that spins instead of polling the fd.
  bool signalled() const noexcept { return signalled_.load(std::memory_order_acquire); }
  // Makes the fd unreadable again and clears signalled().
  void drain() noexcept;

 private:
  UniqueFd fd_;
  std::atomic<bool> signalled_{false};
};

}  // namespace rcoll
