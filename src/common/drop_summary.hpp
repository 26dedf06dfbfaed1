// The account a listener keeps of connections it drops before they prove
// the job token (floods, probes, stray clients, a rank with the wrong
// token): the bootstrap service's and each TCP transport's. None gets a
// log line of its own (an outsider who can connect could otherwise write
// one line per connection into the job's output); instead at most one
// summary line per period, so that a flood is still seen:
//   "bootstrap: dropped 412 connections that did not prove the job token
//    in the last 5.0 s (400 evicted by newer ones, 12 silent past the
//    first-frame limit; 412 from 127.0.0.1; 412 since it opened)"
// Counts stay bounded: sources beyond a few dozen are lumped together.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace rcoll {

class DropSummary {
 public:
  using Clock = std::chrono::steady_clock;

  // `who` starts every line ("bootstrap", "rank 3: tcp listener").
  DropSummary(std::string who, std::chrono::milliseconds period, Clock::time_point now);
  // Reports what is still pending.
  ~DropSummary();
  DropSummary(const DropSummary&) = delete;
  DropSummary& operator=(const DropSummary&) = delete;

  // One more connection dropped for `reason` (a static string); `source`
  // its address, or empty where the listener does not keep it.
  void count(const char* reason, const std::string& source = {});
  // Logs the summary if one is pending and a period has passed since the last.
  void report_if_due(Clock::time_point now);
  // Logs what is pending now.
  void report(Clock::time_point now);
  // When report_if_due() will next have something to say, if anything is pending.
  std::optional<Clock::time_point> next_report() const;
  // Connections counted since the listener opened.
  std::uint64_t total() const noexcept { return total_; }

 private:
  static constexpr std::size_t max_sources = 32;

  std::string who_;
  std::chrono::milliseconds period_;
  Clock::time_point window_start_;
  Clock::time_point last_report_;
  std::uint64_t pending_ = 0;
  std::uint64_t total_ = 0;
  std::map<std::string, std::uint64_t> by_source_;
  std::map<std::string, std::uint64_t> by_reason_;
};

}  // namespace rcoll
