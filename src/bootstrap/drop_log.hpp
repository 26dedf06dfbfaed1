// The bootstrap server's account of connections that ended without
// joining (floods, probes, stray clients, a rank with the wrong token).
// They get no log line each: an outsider who can connect could otherwise
// write one line per connection into the job's output. Instead at most
// one summary line per `interval`:
//   "bootstrap: closed 412 unauthenticated connections (412 from 127.0.0.1;
//    400 evicted, 12 sent no JOIN in time) in the last 5.0 s"
// Counts stay bounded: sources beyond a few dozen are lumped together.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace rcoll::bootstrap {

class DropLog {
 public:
  using Clock = std::chrono::steady_clock;

  DropLog(Clock::time_point now, std::chrono::milliseconds interval);

  // One more connection from `ip` ended for `reason` (a static string).
  void count(const std::string& ip, const char* reason);
  // Logs the summary if one is pending and `interval` has passed since the last.
  void report_if_due(Clock::time_point now);
  // Logs what is pending now (the server's end).
  void report(Clock::time_point now);
  // When report_if_due() will next have something to say, if anything is pending.
  std::optional<Clock::time_point> next_report() const;
  // Connections counted since the server started (for tests).
  std::size_t total() const noexcept { return total_; }

 private:
  static constexpr std::size_t max_sources = 32;

  std::chrono::milliseconds interval_;
  Clock::time_point window_start_;
  Clock::time_point last_report_;
  std::size_t pending_ = 0;
  std::size_t total_ = 0;
  std::map<std::string, std::size_t> by_source_;
  std::map<std::string, std::size_t> by_reason_;
};

}  // namespace rcoll::bootstrap
