// What a blocked call learns from the job's store (failure_report.hpp):
// that the job failed elsewhere, or that a rank it waits for has left.
//
// A failed communicator closes its connections, and that ends the waits of
// the peers that have something pending with it. A rank whose pending
// requests are all with other ranks hears nothing: in a ring whose rank 1
// died before it ever connected to rank 2, rank 2 waits on rank 1 while
// the failure travels the other way round the ring and stops at rank 3,
// to which rank 2 owes nothing more. So a call that has blocked for a
// while looks in the store now and then:
// - keys::first_failure set: some rank's communicator failed, so this one
//   cannot complete its collectives either; IoError naming that rank (the
//   communicator's error adds the chain to the first cause).
// - keys::departed(peer) set for a peer it still waits on, at two checks
//   in a row: that rank left the job (killed, or its communicator was
//   destroyed) and will send nothing more; IoError naming it. Two checks
//   because a rank may leave right after its last send, whose bytes can
//   still be on their way.
// Each check is at most two store reads (one round trip each to the
// bootstrap service), and checks are first_check_after into the call and
// then check_every apart, so a rank blocked for minutes costs the service
// one read a second. Never on the fast path: the wait calls it only while
// blocked (transport/wait.hpp, WaitObserver).
#pragma once

#include <chrono>
#include <span>

#include "common/deadline.hpp"
#include "common/lazy_text.hpp"
#include "diagnostics/failure_report.hpp"
#include "transport/request.hpp"

namespace rcoll::diagnostics {

class FailureWatch {
 public:
  static constexpr std::chrono::milliseconds first_check_after{1000};
  static constexpr std::chrono::milliseconds check_every{2000};

  // `report` null: watch nothing. `start`: when the call began.
  FailureWatch(FailureReport* report, int rank, Deadline::Clock::time_point start) noexcept
      : report_(report), rank_(rank), next_check_(start + first_check_after) {}

  // Throws IoError if a check is due and finds a failure or a departed peer.
  void check(Deadline::Clock::time_point now, std::span<const int> pending_peers, const LazyText& step) {
    if (report_ == nullptr || now < next_check_) return;
    next_check_ = now + check_every;
    look(pending_peers, step);
  }

 private:
  void look(std::span<const int> pending_peers, const LazyText& step);
  // The pending peer to ask about this time: the suspect again, else the next one in turn.
  int peer_to_ask(std::span<const int> peers);

  FailureReport* report_;
  int rank_;
  Deadline::Clock::time_point next_check_;
  unsigned turn_ = 0;  // rotates the departed check over the pending peers
  int suspect_ = -1;   // the pending peer found departed at the last check
};

}  // namespace rcoll::diagnostics
