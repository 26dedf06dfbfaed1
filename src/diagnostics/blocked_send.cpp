#include "diagnostics/blocked_send.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include "common/log.hpp"
#include "diagnostics/failure_report.hpp"
#include "store/keys.hpp"

namespace rcoll::diagnostics {
namespace {

constexpr auto set_bound = std::chrono::seconds(1);
constexpr auto poll_interval = std::chrono::milliseconds(10);

}  // namespace

std::string BlockedSend::explain(const CallInfo& call, std::size_t bytes, Transport transport,
                                 std::chrono::milliseconds grace) noexcept {
  try {
    publish(call);
    std::string text;
    if (bytes > transport.eager_limit)
      text = "rank " + std::to_string(call.peer) + " has not posted a matching receive (tag " +
             std::to_string(call.tag) + "): a send of " + std::to_string(bytes) + " bytes, above the " +
             std::string(transport.name) + " eager limit of " + std::to_string(transport.eager_limit) +
             " bytes, waits for its receive";
    std::string next = chain(call, Deadline::after(grace));
    if (!next.empty()) text += (text.empty() ? "" : "; ") + next;
    return text;
  } catch (const std::exception& e) {
    return std::string("send diagnosis failed: ") + e.what();
  }
}

void BlockedSend::publish(const CallInfo& call) noexcept {
  try {
    store_.set(store::keys::blocked_send(rank_), std::to_string(call.peer) + "\n" + call.describe(),
               Deadline::after(set_bound));
  } catch (const std::exception& e) {
    log::debug("send diagnosis: cannot publish {}: {}", store::keys::blocked_send(rank_), e.what());
  }
}

std::optional<std::pair<int, std::string>> BlockedSend::wait_for(int rank, Deadline deadline) noexcept {
  for (;;) {
    try {
      if (auto value = store_.try_get(store::keys::blocked_send(rank))) return split_rank_value(*value);
    } catch (const std::exception& e) {
      log::debug("send diagnosis: cannot read {}: {}", store::keys::blocked_send(rank), e.what());
      return std::nullopt;
    }
    if (deadline.expired()) return std::nullopt;
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(poll_interval, deadline.remaining()));
  }
}

std::string BlockedSend::chain(const CallInfo& call, Deadline deadline) noexcept {
  std::vector<int> ranks{rank_, call.peer};  // rank_ sends to call.peer, which sends to ...
  std::string first;                         // what call.peer is blocked in
  while (static_cast<int>(ranks.size()) <= size_) {
    auto blocked = wait_for(ranks.back(), deadline);
    if (!blocked) break;
    if (first.empty()) first = blocked->second;
    if (blocked->first == rank_) {
      std::string circle;
      for (int r : ranks) circle += std::to_string(r) + " -> ";
      return "ranks " + circle + std::to_string(rank_) +
             " are each blocked in a send to the next: a circular wait (a send above the eager limit waits for "
             "its receive); let some of them receive first (e.g. odd ranks receive before they send)";
    }
    if (std::find(ranks.begin(), ranks.end(), blocked->first) != ranks.end()) break;
    ranks.push_back(blocked->first);
  }
  if (first.empty()) return {};
  return "rank " + std::to_string(call.peer) + " is itself blocked in " + first;
}

}  // namespace rcoll::diagnostics
