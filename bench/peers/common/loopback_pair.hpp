// A TCP connection over 127.0.0.1 between this process and a forked child,
// for the physical-limit probes (tcp_stream, tcp_pingpong): plain sockets,
// default buffers, TCP_NODELAY, no pacing congestion control (cubic or reno
// where the system default is BBR), and no wait longer than 60 s (an error,
// never a hang).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>

namespace rcoll::peers {

// Owns a file descriptor; throws on a negative one ("socket: <errno text>").
class Fd {
 public:
  explicit Fd(int fd);
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }

 private:
  int fd_;
};

// Throws "what: <errno text>" when rc < 0.
void check(int rc, const char* what);

// Writes all `bytes` (blocking).
void send_all(int fd, const std::byte* data, std::size_t bytes);

// Reads exactly `bytes`. With `spin` the socket is polled without sleeping
// (MSG_DONTWAIT in a loop, as a busy-polling library would), so the reading
// side never needs a wake-up; the 60 s limit holds either way.
void recv_all(int fd, std::byte* data, std::size_t bytes, bool spin = false);

// Runs `child` in a forked process on its end of a fresh loopback
// connection; its return value is the child's exit status. The parent keeps
// the other end; finish() waits for the child and throws "<name> failed"
// unless it exited with 0. Destroyed unfinished (the parent failed), it
// shuts the connection down first, so the child stops at once.
class LoopbackPair {
 public:
  LoopbackPair(const char* name, const std::function<int(int fd)>& child);
  LoopbackPair(const LoopbackPair&) = delete;
  LoopbackPair& operator=(const LoopbackPair&) = delete;
  ~LoopbackPair();
  int fd() const { return connection_.get(); }
  void finish();

 private:
  const char* name_;
  pid_t child_ = -1;  // before connection_: its initializer forks
  Fd connection_;
};

}  // namespace rcoll::peers
