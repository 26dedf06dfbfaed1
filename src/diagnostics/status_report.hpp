// Status reports on request: rcoll-run forwards SIGUSR1 to the ranks, and
// every communicator of each rank prints one line on stderr saying what it
// does, e.g.
//   rcoll status: rank 3: in allreduce #12 (4096 x float32, sum): allreduce ring step 2/3, waiting for ranks 1, 2
//   rcoll status: rank 3: not in an rcoll call; last call allreduce #11 (4096 x float32, sum) completed
//
// The signal handler only bumps an atomic counter and writes one byte to a
// pipe (both async-signal-safe). A reporter thread wakes on the pipe and
// answers for every communicator that is not inside a call. A communicator
// inside a call answers from its wait loop (it knows the step and the
// pending peers: CallWatch); if it has not within 300 ms (it is busy moving
// data, not blocked), the reporter answers for it from its CallState.
// Nothing here runs unless enabled: the handler is installed only when
// rcoll-run asks for it (RCOLL_STATUS_SIGNAL=1).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "diagnostics/call_state.hpp"
#include "common/lazy_text.hpp"

namespace rcoll::diagnostics::status {

// Installs the SIGUSR1 handler and starts the reporter thread, once per
// process; later calls do nothing. IoError if the pipe or thread cannot be made.
void enable_signal();
bool enabled() noexcept;
// Asks for a report now, as SIGUSR1 does (async-signal-safe).
void request() noexcept;
// How many reports were requested so far.
std::uint64_t requests() noexcept;
// Lets the reporter see `state` for as long as it lives.
void track(const std::shared_ptr<CallState>& state);

// The wait loop's answer: "rank R: in <step>, waiting for ranks ...".
void print_waiting(int rank, const LazyText& step, std::span<const int> peers);
// The reporter's answer for a communicator from its state alone.
void print_state(const CallState::Snapshot& snapshot, int rank);

}  // namespace rcoll::diagnostics::status
