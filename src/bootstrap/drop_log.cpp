#include "bootstrap/drop_log.hpp"

#include <algorithm>
#include <cstdio>

#include "common/log.hpp"

namespace rcoll::bootstrap {
namespace {

const std::string other_sources = "other addresses";

std::string seconds_text(std::chrono::steady_clock::duration span) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f s", std::chrono::duration<double>(span).count());
  return text;
}

}  // namespace

DropLog::DropLog(Clock::time_point now, std::chrono::milliseconds interval)
    : interval_(interval), window_start_(now), last_report_(now - interval) {}

void DropLog::count(const std::string& ip, const char* reason) {
  ++pending_;
  ++total_;
  const std::string& source = by_source_.contains(ip) || by_source_.size() < max_sources ? ip : other_sources;
  ++by_source_[source];
  ++by_reason_[reason];
}

std::optional<DropLog::Clock::time_point> DropLog::next_report() const {
  if (pending_ == 0) return std::nullopt;
  return last_report_ + interval_;
}

void DropLog::report_if_due(Clock::time_point now) {
  if (pending_ > 0 && now >= last_report_ + interval_) report(now);
}

void DropLog::report(Clock::time_point now) {
  if (pending_ > 0) {
    auto top = std::max_element(by_source_.begin(), by_source_.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    std::string reasons;
    for (const auto& [reason, n] : by_reason_) reasons += "; " + std::to_string(n) + " " + reason;
    log::warn("bootstrap: closed {} unauthenticated connection{} ({} from {}{}) in the last {}", pending_,
              pending_ == 1 ? "" : "s", top->second, top->first, reasons, seconds_text(now - window_start_));
  }
  pending_ = 0;
  by_source_.clear();
  by_reason_.clear();
  window_start_ = now;
  last_report_ = now;
}

}  // namespace rcoll::bootstrap
