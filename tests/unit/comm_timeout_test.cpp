// Per-call timeouts, the hang diagnosis of a collective that times out, and
// status reports on request, with ranks as threads over the in-process and
// the TCP transport (joined through the in-memory bootstrap).
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "bootstrap/in_memory.hpp"
#include "comm/comm_impl.hpp"
#include "diagnostics/failure_report.hpp"
#include "diagnostics/hang_diagnosis.hpp"
#include "diagnostics/status_report.hpp"
#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"
#include "store/keys.hpp"
#include "support/run_ranks.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// These tests time calls against short timeouts; the start-up calibration
// is not their subject (its first run under TSan takes over a second).
void run_comms(const std::string& backend, int size, std::chrono::milliseconds timeout,
               const std::function<void(Comm&)>& body) {
  Options base;
  base.timeout = timeout;
  base.calibrate = false;
  test::run_comm_ranks(backend, size, base, body);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class CommTimeout : public ::testing::TestWithParam<std::string> {};

TEST_P(CommTimeout, PerCallTimeoutOverridesTheCommunicatorsAndNamesTheMissingRank) {
  std::atomic<bool> done{false};
  run_comms(GetParam(), 2, 60s, [&](Comm& comm) {
    std::vector<float> data(16, 1.0f);
    if (comm.rank() == 1) {  // never joins; stays alive until rank 0 has its error
      while (!done.load()) std::this_thread::sleep_for(5ms);
      return;
    }
    EXPECT_THROW(comm.allreduce(std::span<float>(data), ReduceOp::sum, {.timeout = -1ms}), InvalidArgument);
    auto start = Clock::now();
    try {
      comm.allreduce(std::span<float>(data), ReduceOp::sum, {.timeout = 300ms});
      ADD_FAILURE() << "allreduce completed without rank 1";
    } catch (const TimeoutError& e) {
      auto took = Clock::now() - start;
      EXPECT_GE(took, 300ms);
      EXPECT_LT(took, 3s) << "the call's 300 ms, not the communicator's 60 s";
      std::string what = e.what();
      EXPECT_TRUE(contains(what, "rank 0: allreduce #0 (16 x float32, sum)")) << what;
      EXPECT_TRUE(contains(what, "timed out waiting for rank(s) 1")) << what;
      EXPECT_TRUE(contains(what, "rank 1 has not joined; all others wait on them")) << what;
      EXPECT_EQ(e.waiting_for(), std::vector<int>{1});
      EXPECT_EQ(e.not_joined(), std::vector<int>{1});
    }
    done = true;
  });
}

TEST_P(CommTimeout, HangDiagnosisNamesEveryRankThatDidNotJoin) {
  std::atomic<int> finished{0};
  std::atomic<int> diagnosed{0};
  // The warm-up barrier connects five ranks, which under TSan on a loaded
  // host can take over a second: only the allreduce runs on a short clock.
  // Ranks publish their entry after a quarter of it, so the diagnosis holds
  // while they enter the allreduce within about 2 s of each other.
  run_comms(GetParam(), 5, 60s, [&](Comm& comm) {
    const int r = comm.rank();
    comm.barrier();
    if (r == 1 || r == 3) {  // stuck elsewhere until the others gave up
      while (finished.load() < 3) std::this_thread::sleep_for(5ms);
      return;
    }
    std::vector<std::int32_t> data(4096, r);
    try {
      comm.allreduce(std::span<std::int32_t>(data), ReduceOp::sum, {.timeout = 3s});
      ADD_FAILURE() << "allreduce completed without ranks 1 and 3";
    } catch (const Error& e) {
      // The first rank to time out closes its connections: a peer waiting on
      // it may fail with that IoError, whose text carries the diagnosis.
      std::string what = e.what();
      EXPECT_TRUE(contains(what, "ranks 1 and 3 have not joined; all others wait on them")) << what;
      if (auto* timeout = dynamic_cast<const TimeoutError*>(&e)) {
        EXPECT_EQ(timeout->not_joined(), (std::vector<int>{1, 3}));
        ++diagnosed;
      }
    }
    ++finished;
  });
  EXPECT_GE(diagnosed.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, CommTimeout, ::testing::Values("inproc", "tcp"));

// The diagnosis reads what each rank published for the collective.
TEST(HangDiagnosis, TellsMissingLateDifferentAndFailedRanksApart) {
  bootstrap::InMemoryRendezvous rendezvous(6);
  std::vector<std::unique_ptr<bootstrap::Bootstrap>> b(6);
  test::run_ranks(6, [&](int r) { b[static_cast<std::size_t>(r)] = rendezvous.join(r, "", Deadline::after(5s)); });
  auto call = diagnostics::CallInfo::allreduce(7, 4096, DataType::float32, ReduceOp::sum);
  diagnostics::HangDiagnosis(*b[1], 1, 6).publish(call);
  diagnostics::HangDiagnosis(*b[2], 2, 6).publish(diagnostics::CallInfo::bcast(7, 16, DataType::float32, 0));
  diagnostics::HangDiagnosis(*b[3], 3, 6).publish(diagnostics::CallInfo::barrier(8));  // finished #7 already
  diagnostics::FailureReport(*b[5], 5, 6).publish_failure(-1, "rank 5: bcast #6 (...): timed out");
  auto start = Clock::now();
  auto finding = diagnostics::HangDiagnosis(*b[0], 0, 6).explain(call, 100ms);
  EXPECT_LT(Clock::now() - start, 2s);
  EXPECT_EQ(finding.not_joined, (std::vector<int>{4, 5}));
  EXPECT_EQ(finding.text,
            "ranks 4 and 5 have not joined; rank 3 already left it (it waits in #8, barrier); "
            "rank 2 entered it as bcast (16 x float32, root 0); "
            "rank 5 failed before it (rank 5: bcast #6 (...): timed out)");
  // Rank 0 published its own key while explaining.
  EXPECT_EQ(b[4]->try_get(store::keys::diag(7, 0)), call.describe());
}

TEST(HangDiagnosis, EveryRankJoinedAndTheSlowThreshold) {
  bootstrap::InMemoryRendezvous rendezvous(2);
  std::vector<std::unique_ptr<bootstrap::Bootstrap>> b(2);
  test::run_ranks(2, [&](int r) { b[static_cast<std::size_t>(r)] = rendezvous.join(r, "", Deadline::after(5s)); });
  auto call = diagnostics::CallInfo::barrier(3);
  diagnostics::HangDiagnosis(*b[1], 1, 2).publish(call);
  auto finding = diagnostics::HangDiagnosis(*b[0], 0, 2).explain(call, 50ms);
  EXPECT_TRUE(finding.not_joined.empty());
  EXPECT_TRUE(contains(finding.text, "every rank entered it")) << finding.text;
  EXPECT_EQ(diagnostics::HangDiagnosis::slow_after(4000ms), 1000ms);
  EXPECT_EQ(diagnostics::HangDiagnosis::slow_after(2ms), 1ms);
}

// SIGUSR1 (as rcoll-run forwards it): a rank blocked in a call says where
// and on whom it waits; a rank outside any call says what it did last.
TEST(StatusReport, EveryRankSaysWhatItDoes) {
  diagnostics::status::enable_signal();
  ASSERT_TRUE(diagnostics::status::enabled());
  std::atomic<bool> reported{false};
  std::atomic<bool> blocked{false};
  testing::internal::CaptureStderr();
  run_comms("tcp", 2, 20s, [&](Comm& comm) {
    comm.barrier();
    std::int32_t value = 0;
    if (comm.rank() == 0) {
      blocked = true;
      EXPECT_EQ(comm.recv(&value, 1, DataType::int32, 1, 5), 1u);
      EXPECT_EQ(value, 42);
      return;
    }
    while (!blocked.load()) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(200ms);  // rank 0 is blocked in its wait by now
    ::raise(SIGUSR1);
    std::this_thread::sleep_for(700ms);  // the reporter's grace is 300 ms
    reported = true;
    value = 42;
    comm.send(&value, 1, DataType::int32, 0, 5);
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(reported.load());
  EXPECT_TRUE(contains(err, "rcoll status: rank 0: in recv from rank 1 tag 5, waiting for rank 1\n")) << err;
  EXPECT_TRUE(contains(err, "rcoll status: rank 1: not in an rcoll call; last call barrier #0 completed\n")) << err;
}

}  // namespace
}  // namespace rcoll
