// The WaitObserver of one call (transport/wait.hpp): what a communicator's
// waits do when they block. Past the slow threshold inside a collective it
// publishes the hang-diagnosis key once; when a status report was asked for
// (SIGUSR1 through rcoll-run), it prints this rank's step and the peers it
// waits for; now and then it looks whether the job failed elsewhere
// (failure_watch.hpp). wait_all calls it only while blocked, never on the
// fast path.
#pragma once

#include "diagnostics/call_info.hpp"
#include "diagnostics/call_state.hpp"
#include "diagnostics/failure_watch.hpp"
#include "diagnostics/hang_diagnosis.hpp"
#include "diagnostics/status_report.hpp"
#include "transport/wait.hpp"

namespace rcoll::diagnostics {

class CallWatch final : public transport::WaitObserver {
 public:
  // `diagnosis` null: nothing to publish (point to point).
  CallWatch(const CallInfo& call, CallState& state, HangDiagnosis* diagnosis, FailureWatch failures,
            Deadline::Clock::time_point slow_at)
      : call_(call), state_(state), diagnosis_(diagnosis), failures_(failures), slow_at_(slow_at) {}

  void blocking(Deadline::Clock::time_point now, std::span<const int> pending_peers, const LazyText& step) override {
    if (diagnosis_ != nullptr && now >= slow_at_) {
      diagnosis_->publish(call_);
      diagnosis_ = nullptr;
    }
    std::uint64_t generation = status::requests();
    if (generation != 0 && !state_.answered(generation) && state_.claim(generation)) {
      status::print_waiting(state_.rank(), step, pending_peers);
    }
    failures_.check(now, pending_peers, step);
  }

 private:
  const CallInfo& call_;
  CallState& state_;
  HangDiagnosis* diagnosis_;
  FailureWatch failures_;
  Deadline::Clock::time_point slow_at_;
};

}  // namespace rcoll::diagnostics
