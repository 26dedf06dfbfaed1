// The listener's count of the connections it drops before they prove the
// job token (tcp_connections.cpp). A stranger can open any number of them,
// so none gets a log line of its own (an outsider could otherwise write
// lines into the job's output at will); the tally reports them in one
// summary line at most once per period, so a flood is still seen.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>

namespace rcoll::transport::tcp {

class DropTally {
 public:
  enum class Cause : std::uint8_t { closed, not_rcoll, bad_proof, silent, evicted, no_fd };
  static constexpr std::size_t cause_count = 6;
  using Clock = std::chrono::steady_clock;

  DropTally(int rank, std::chrono::milliseconds period) : rank_(rank), period_(period) {}
  // Reports what the last period left unreported.
  ~DropTally();
  DropTally(const DropTally&) = delete;
  DropTally& operator=(const DropTally&) = delete;

  // Counts a drop; reports at once if the last report is a period old.
  void note(Cause cause, Clock::time_point now);
  // Reports if something waits and the last report is a period old.
  // Returns when the next report is due; max() when nothing waits.
  Clock::time_point report_due(Clock::time_point now);
  // Drops since the listener opened.
  std::uint64_t total() const noexcept { return total_; }

 private:
  void report(Clock::time_point now);
  std::string summary() const;

  int rank_;
  std::chrono::milliseconds period_;
  std::array<std::uint64_t, cause_count> unreported_{};
  std::uint64_t total_ = 0;
  std::uint64_t reported_ = 0;
  Clock::time_point last_report_{};  // the clock's epoch: the first drop reports at once
};

}  // namespace rcoll::transport::tcp
