// One epoll set (level-triggered) and the keys the TCP transport files its
// sockets under.
#pragma once

#include <sys/epoll.h>

#include <chrono>
#include <cstdint>

#include "common/fd.hpp"

namespace rcoll::transport::tcp {

// An epoll key: what kind of socket, and which one (rank or inbound id).
// `wakeup` is not a socket: the eventfd of TcpTransport::wake().
enum class SocketRole : std::uint32_t { listener = 1, peer = 2, dialer = 3, inbound = 4, wakeup = 5 };

inline std::uint64_t make_key(SocketRole role, std::uint32_t index) noexcept {
  return (static_cast<std::uint64_t>(role) << 32) | index;
}
inline SocketRole key_role(std::uint64_t key) noexcept { return static_cast<SocketRole>(key >> 32); }
inline std::uint32_t key_index(std::uint64_t key) noexcept { return static_cast<std::uint32_t>(key); }

class Poller {
 public:
  Poller();  // IoError if epoll_create1 fails

  // Registers (or re-registers) `fd` for reading, and writing if `want_write`.
  // IoError if epoll_ctl fails.
  void add(int fd, std::uint64_t key, bool want_write);
  void modify(int fd, std::uint64_t key, bool want_write);
  // Ignores errors: the fd may already be closed by its owner.
  void remove(int fd) noexcept;
  // epoll_wait with a microsecond timeout (0: poll); returns the number of
  // events, 0 on timeout or EINTR. IoError on other failures.
  int wait(epoll_event* events, int max_events, std::chrono::microseconds timeout);

 private:
  void control(int op, int fd, std::uint64_t key, bool want_write);
  UniqueFd fd_;
};

}  // namespace rcoll::transport::tcp
