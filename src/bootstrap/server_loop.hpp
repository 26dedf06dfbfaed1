// The bootstrap server's event loop (one thread, poll()): accepts clients,
// moves bytes between sockets and sessions, hands complete frames to the
// ServerJob and enforces every deadline. BootstrapServer owns the sockets
// and the results; this class owns the sessions for the length of run().
#pragma once

#include <poll.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/drop_summary.hpp"
#include "bootstrap/server_job.hpp"
#include "bootstrap/server_session.hpp"
#include "bootstrap/tcp_server.hpp"

namespace rcoll::bootstrap {

class ServerLoop {
 public:
  using Clock = std::chrono::steady_clock;

  struct Settings {
    int size;
    std::string job_token;
    std::chrono::milliseconds join_timeout;
    std::chrono::milliseconds io_timeout;
    std::chrono::milliseconds hello_timeout;
  };
  struct Result {
    BootstrapServer::Outcome outcome;
    std::vector<int> ranks;
    std::string text;
  };

  // The fds stay owned by the caller. `joined` is kept up to date for
  // BootstrapServer::joined_ranks().
  ServerLoop(Settings settings, int listen_fd, int wake_fd, const std::atomic<bool>& stop_requested,
             std::atomic<int>& joined);

  Result run();

 private:
  void poll_once(Clock::time_point now);
  int poll_timeout_ms(Clock::time_point now) const;
  void accept_clients(Clock::time_point now);
  void admit(UniqueFd fd, Clock::time_point now);
  // Makes room for one more unauthenticated connection (see server_loop.cpp).
  void evict_oldest_unauthenticated();
  void serve(ServerSession& session, short revents, Clock::time_point now);
  void enforce_io_deadlines(Clock::time_point now);
  void reap();
  void flush_all(Clock::time_point now);
  void wind_down();
  Result result() const;

  Settings settings_;
  int listen_fd_;
  int wake_fd_;
  const std::atomic<bool>& stop_requested_;
  std::atomic<int>& joined_;
  ServerJob job_;
  DropSummary drops_;
  std::vector<std::unique_ptr<ServerSession>> sessions_;
  std::vector<pollfd> pollfds_;
  Clock::time_point accept_paused_until_{};
  std::optional<Clock::time_point> linger_until_;
};

}  // namespace rcoll::bootstrap
