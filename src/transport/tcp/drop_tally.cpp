#include "transport/tcp/drop_tally.hpp"

#include "common/log.hpp"

namespace rcoll::transport::tcp {
namespace {

constexpr const char* cause_names[DropTally::cause_count] = {
    "closed by the client", "not an rcoll hello", "no proof of the job token", "silent past the first-frame limit",
    "evicted by newer ones over the pending cap", "dropped while out of file descriptors",
};

}  // namespace

DropTally::~DropTally() {
  if (total_ != reported_) report(Clock::now());
}

void DropTally::note(Cause cause, Clock::time_point now) {
  ++unreported_[static_cast<std::size_t>(cause)];
  ++total_;
  report_due(now);
}

DropTally::Clock::time_point DropTally::report_due(Clock::time_point now) {
  if (total_ == reported_) return Clock::time_point::max();
  if (now - last_report_ >= period_) {
    report(now);
    return Clock::time_point::max();
  }
  return last_report_ + period_;
}

void DropTally::report(Clock::time_point now) {
  log::warn("rank {}: tcp listener dropped {} connection(s) that did not prove the job token ({}; {} since it "
            "opened; at most one such line per {} ms)",
            rank_, total_ - reported_, summary(), total_, period_.count());
  unreported_.fill(0);
  reported_ = total_;
  last_report_ = now;
}

std::string DropTally::summary() const {
  std::string text;
  for (std::size_t i = 0; i < cause_count; ++i) {
    if (unreported_[i] == 0) continue;
    if (!text.empty()) text += ", ";
    text += std::to_string(unreported_[i]) + " " + cause_names[i];
  }
  return text;
}

}  // namespace rcoll::transport::tcp
