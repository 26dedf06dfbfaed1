#include "diagnostics/failure_watch.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "rcoll/errors.hpp"
#include "transport/wait.hpp"

namespace rcoll::diagnostics {

void FailureWatch::look(std::span<const int> pending_peers, const LazyText& step) {
  if (auto first = report_->first_failure(); first && first->first != rank_)
    throw IoError(rank_, first->first, step.str(),
                  "rank " + std::to_string(first->first) + "'s communicator failed while this rank waited");
  int peer = peer_to_ask(pending_peers);
  if (peer < 0) return;
  if (!report_->departed(peer)) {
    suspect_ = -1;
    return;
  }
  if (std::exchange(suspect_, peer) == peer)
    throw IoError(rank_, peer, step.str(),
                  "rank " + std::to_string(peer) + " left the job while this rank waited for it");
}

int FailureWatch::peer_to_ask(std::span<const int> peers) {
  if (peers.empty()) return -1;
  if (std::find(peers.begin(), peers.end(), suspect_) != peers.end()) return suspect_;
  suspect_ = -1;
  return peers[turn_++ % peers.size()];
}

}  // namespace rcoll::diagnostics
