#include "diagnostics/failure_report.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

#include "common/log.hpp"
#include "diagnostics/store_read.hpp"
#include "store/keys.hpp"

namespace rcoll::diagnostics {
namespace {

constexpr auto publish_bound = std::chrono::seconds(1);
// Longest chain of keys::fail(rank) followed.
constexpr int max_hops = 8;
// Longest error text or reason published (the store's values are bounded).
constexpr std::size_t max_text = 4096;

}  // namespace

std::optional<std::pair<int, std::string>> split_rank_value(const std::string& value) {
  auto newline = value.find('\n');
  if (newline == std::string::npos) return std::nullopt;
  int number = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + newline, number);
  if (error != std::errc() || end != value.data() + newline) return std::nullopt;
  return std::pair{number, value.substr(newline + 1)};
}

void FailureReport::publish_failure(int peer, const std::string& what) noexcept {
  const std::string text = what.substr(0, max_text);
  try {
    store_.set(store::keys::fail(rank_), std::to_string(peer) + "\n" + text, Deadline::after(publish_bound));
  } catch (const std::exception& e) {
    log::debug("failure report: cannot publish this rank's failure: {}", e.what());
    return;
  }
  try {
    store_.set(store::keys::first_failure, std::to_string(rank_) + "\n" + text, Deadline::after(publish_bound));
  } catch (const std::exception& e) {
    // Another rank failed first (the key holds its error), or the service is gone.
    log::debug("failure report: not the first failure: {}", e.what());
  }
}

void FailureReport::publish_abort(const std::string& reason, std::chrono::milliseconds bound) noexcept {
  try {
    store_.set(store::keys::abort, std::to_string(rank_) + "\n" + reason.substr(0, max_text),
               Deadline::after(bound));
  } catch (const std::exception& e) {
    // Another rank aborted first (the key holds its reason), or the service is gone.
    log::debug("abort: cannot publish the reason: {}", e.what());
  }
}

std::optional<std::string> FailureReport::find_abort() noexcept {
  auto value = read_quietly(store_, store::keys::abort, "failure report");
  if (!value) return std::nullopt;
  auto parts = split_rank_value(*value);
  if (!parts) return std::nullopt;
  return "rank " + std::to_string(parts->first) + " aborted: " + parts->second;
}

std::string FailureReport::explain(int peer) noexcept {
  if (auto aborted = find_abort()) return *aborted;
  // Follow the chain: the peer's report names its own peer, and so on, to
  // the earliest report (a rank that published nothing died or exited, and
  // the report before it names it as its peer).
  std::vector<int> visited{rank_};
  std::string earliest;
  for (int hop = 0; hop < max_hops && peer >= 0 && peer < size_; ++hop) {
    if (std::find(visited.begin(), visited.end(), peer) != visited.end()) break;
    visited.push_back(peer);
    auto report = failure_of(peer);
    if (!report) break;
    earliest = report->second;
    peer = report->first;
  }
  return earliest.empty() ? "" : "first failure: " + earliest;
}

std::optional<std::pair<int, std::string>> FailureReport::failure_of(int rank) noexcept {
  auto value = read_quietly(store_, store::keys::fail(rank), "failure report");
  return value ? split_rank_value(*value) : std::nullopt;
}

std::optional<std::pair<int, std::string>> FailureReport::first_failure() noexcept {
  auto value = read_quietly(store_, store::keys::first_failure, "failure report");
  return value ? split_rank_value(*value) : std::nullopt;
}

bool FailureReport::departed(int rank) noexcept {
  return read_quietly(store_, store::keys::departed(rank), "failure report").has_value();
}

}  // namespace rcoll::diagnostics
