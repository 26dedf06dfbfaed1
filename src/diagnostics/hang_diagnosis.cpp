#include "diagnostics/hang_diagnosis.hpp"

#include <algorithm>
#include <map>
#include <thread>

#include "diagnostics/failure_report.hpp"
#include "diagnostics/rank_list.hpp"
#include "diagnostics/store_read.hpp"
#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "store/keys.hpp"

namespace rcoll::diagnostics {
namespace {

constexpr auto set_bound = std::chrono::seconds(1);
constexpr auto poll_interval = std::chrono::milliseconds(20);

}  // namespace

std::chrono::milliseconds HangDiagnosis::slow_after(std::chrono::milliseconds timeout) {
  return std::max(timeout / 4, std::chrono::milliseconds(1));
}

void HangDiagnosis::publish(const CallInfo& call) noexcept {
  if (published_ == call.sequence) return;
  published_ = call.sequence;
  try {
    store_.set(store::keys::diag(call.sequence, rank_), call.describe(), Deadline::after(set_bound));
  } catch (const std::exception& e) {
    log::debug("hang diagnosis: cannot publish {}: {}", store::keys::diag(call.sequence, rank_), e.what());
  }
}

HangDiagnosis::Finding HangDiagnosis::explain(const CallInfo& call, std::chrono::milliseconds grace) noexcept {
  try {
    publish(call);
    std::vector<std::optional<std::string>> joined(static_cast<std::size_t>(size_));
    joined[static_cast<std::size_t>(rank_)] = call.describe();
    Deadline deadline = Deadline::after(grace);
    for (;;) {
      bool missing = false;
      for (int r = 0; r < size_; ++r) {
        auto& entry = joined[static_cast<std::size_t>(r)];
        if (!entry) entry = read_quietly(store_, store::keys::diag(call.sequence, r), "hang diagnosis");
        missing |= !entry.has_value();
      }
      if (!missing || deadline.expired()) break;
      std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(poll_interval, deadline.remaining()));
    }
    return summarize(call, joined);
  } catch (const std::exception& e) {
    return {std::string("hang diagnosis failed: ") + e.what(), {}};
  }
}

HangDiagnosis::Finding HangDiagnosis::summarize(const CallInfo& call,
                                                const std::vector<std::optional<std::string>>& joined) {
  Finding finding;
  std::vector<std::string> parts;    // after the "not joined" sentence
  std::vector<std::string> failed;   // "rank 1 failed in it: ..."
  std::map<std::string, std::vector<int>> different;  // description -> ranks
  FailureReport failures(store_, rank_, size_);
  const std::string mine = call.describe();
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    const auto& entry = joined[static_cast<std::size_t>(r)];
    if (entry && *entry != mine) different[*entry].push_back(r);
    auto failure = failures.failure_of(r);
    if (entry) {
      if (failure) failed.push_back("rank " + std::to_string(r) + " failed in it (" + failure->second + ")");
    } else if (failure) {
      finding.not_joined.push_back(r);
      failed.push_back("rank " + std::to_string(r) + " failed before it (" + failure->second + ")");
    } else if (auto next = read_quietly(store_, store::keys::diag(call.sequence + 1, r), "hang diagnosis")) {
      parts.push_back("rank " + std::to_string(r) + " already left it (it waits in #" +
                      std::to_string(call.sequence + 1) + ", " + *next + ")");
    } else {
      finding.not_joined.push_back(r);
    }
  }
  for (const auto& [description, ranks] : different)
    parts.push_back(name_ranks(ranks) + " entered it as " + description);
  parts.insert(parts.end(), failed.begin(), failed.end());
  if (!finding.not_joined.empty()) {
    std::string text = name_ranks(finding.not_joined) + (finding.not_joined.size() == 1 ? " has" : " have") +
                       " not joined";
    if (parts.empty()) text += "; all others wait on them";
    parts.insert(parts.begin(), text);
  }
  if (parts.empty()) parts.push_back("every rank entered it; none is missing (a rank is stuck inside the call)");
  for (const auto& part : parts) finding.text += (finding.text.empty() ? "" : "; ") + part;
  return finding;
}

}  // namespace rcoll::diagnostics
