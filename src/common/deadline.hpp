// A point in time by which a wait must end. Every blocking call in rcoll
// takes one, so that nothing waits forever.
#pragma once

#include <algorithm>
#include <chrono>

namespace rcoll {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  static Deadline after(std::chrono::milliseconds span) { return Deadline(Clock::now() + span); }
  static Deadline never() { return Deadline(Clock::time_point::max()); }
  // The deadline a public rcoll::Store call is given (a time point).
  static Deadline until(Clock::time_point at) { return Deadline(at); }

  bool expired() const { return Clock::now() >= at_; }
  Clock::time_point at() const { return at_; }
  // Time left, clamped to [0, cap].
  std::chrono::milliseconds remaining(std::chrono::milliseconds cap = std::chrono::hours(24)) const {
    auto now = Clock::now();
    if (now >= at_) return std::chrono::milliseconds(0);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(at_ - now);
    return std::min(left, cap);
  }
  // The earlier of two deadlines.
  Deadline min(Deadline other) const { return Deadline(std::min(at_, other.at_)); }

 private:
  explicit Deadline(Clock::time_point at) : at_(at) {}
  Clock::time_point at_;
};

}  // namespace rcoll
