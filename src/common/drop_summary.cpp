#include "common/drop_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "common/log.hpp"

namespace rcoll {
namespace {

const std::string other_sources = "other addresses";

std::string seconds_text(DropSummary::Clock::duration span) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f s", std::chrono::duration<double>(span).count());
  return text;
}

}  // namespace

DropSummary::DropSummary(std::string who, std::chrono::milliseconds period, Clock::time_point now)
    : who_(std::move(who)), period_(period), window_start_(now), last_report_(now - period) {}

DropSummary::~DropSummary() {
  try {  // a destructor must not throw; the line is only lost
    report(Clock::now());
  } catch (...) {
  }
}

void DropSummary::count(const char* reason, const std::string& source) {
  ++pending_;
  ++total_;
  ++by_reason_[reason];
  if (source.empty()) return;
  const bool known = by_source_.contains(source) || by_source_.size() < max_sources;
  ++by_source_[known ? source : other_sources];
}

std::optional<DropSummary::Clock::time_point> DropSummary::next_report() const {
  if (pending_ == 0) return std::nullopt;
  return last_report_ + period_;
}

void DropSummary::report_if_due(Clock::time_point now) {
  if (pending_ > 0 && now >= last_report_ + period_) report(now);
}

void DropSummary::report(Clock::time_point now) {
  if (pending_ > 0) {
    std::string reasons;
    for (const auto& [reason, n] : by_reason_) reasons += (reasons.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
    std::string top;
    if (!by_source_.empty()) {
      const auto most = std::max_element(by_source_.begin(), by_source_.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
      top = "; " + std::to_string(most->second) + " from " + most->first;
    }
    log::warn("{}: dropped {} connection{} that did not prove the job token in the last {} ({}{}; {} since it "
              "opened)",
              who_, pending_, pending_ == 1 ? "" : "s", seconds_text(now - window_start_), reasons, top, total_);
  }
  pending_ = 0;
  by_source_.clear();
  by_reason_.clear();
  window_start_ = now;
  last_report_ = now;
}

}  // namespace rcoll
