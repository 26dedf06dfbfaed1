// Mismatched calls across ranks. With RCOLL_CHECK (Options::check) every
// rank raises the same MismatchError naming the ranks and the values that
// differ, and the communicator stays usable. Without it, a count mismatch
// ends in an error or a completed call within the timeout, and nothing is
// written beyond the user's buffer.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"
#include "support/run_ranks.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// `size` ranks as threads, each with a Comm over `backend` ("inproc" or
// "tcp"); `adjust` may change one rank's options.
void run_comms(const std::string& backend, int size, const Options& base, const std::function<void(Comm&)>& body,
               const std::function<void(Options&)>& adjust = {}) {
  test::run_comm_ranks(backend, size, base, body, adjust);
}

Options checked(std::chrono::milliseconds timeout = 20s) {
  Options o;
  o.check = true;
  o.timeout = timeout;
  return o;
}

// Every rank raised `expected` (after "rank R: "), with `ranks` named.
struct Mismatches {
  std::mutex mutex;
  std::vector<std::string> texts;
  std::vector<std::vector<int>> ranks;

  void record(const MismatchError& e, int rank) {
    std::lock_guard lock(mutex);
    std::string what = e.what();
    std::string prefix = "rank " + std::to_string(rank) + ": ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    texts.push_back(what.substr(prefix.size()));
    ranks.push_back(e.ranks());
  }
  void expect(std::size_t size, const std::string& expected, const std::vector<int>& mismatched) {
    ASSERT_EQ(texts.size(), size);
    for (const auto& t : texts) EXPECT_EQ(t, expected);
    for (const auto& r : ranks) EXPECT_EQ(r, mismatched);
  }
};

class CommCheck : public ::testing::TestWithParam<std::string> {};

TEST_P(CommCheck, BcastAmongAllreducesIsNamedOnEveryRankAndTheCommunicatorStaysUsable) {
  Mismatches seen;
  run_comms(GetParam(), 4, checked(), [&](Comm& comm) {
    const int r = comm.rank();
    std::vector<float> data(16, 1.0f);
    try {
      if (r == 2) comm.bcast(std::span<float>(data), 0);
      else comm.allreduce(std::span<float>(data), ReduceOp::sum);
      ADD_FAILURE() << "rank " << r << ": no mismatch found";
    } catch (const MismatchError& e) {
      seen.record(e, r);
    }
    EXPECT_EQ(data[0], 1.0f);  // nothing of the collective ran
    comm.allreduce(std::span<float>(data), ReduceOp::sum);
    EXPECT_EQ(data[15], 4.0f);
  });
  seen.expect(4, "allreduce #0: rank 2 called bcast (16 x float32, root 0) while ranks 0, 1 and 3 called "
                 "allreduce (16 x float32, sum)", {2});
}

TEST_P(CommCheck, CountDtypeOpAndRootDifferencesAreNamed) {
  Mismatches counts, roots;
  run_comms(GetParam(), 5, checked(), [&](Comm& comm) {
    const int r = comm.rank();
    std::vector<double> data(32, 2.0);
    try {
      if (r == 1) comm.allreduce(data.data(), 8, DataType::float64, ReduceOp::sum);
      else if (r == 4) comm.allreduce(data.data(), 32, DataType::float64, ReduceOp::max);
      else comm.allreduce(data.data(), 32, DataType::float64, ReduceOp::sum);
      ADD_FAILURE() << "no count mismatch found";
    } catch (const MismatchError& e) {
      counts.record(e, r);
    }
    try {
      comm.bcast(data.data(), 32, DataType::float64, r == 0 ? 0 : 3);
      ADD_FAILURE() << "no root mismatch found";
    } catch (const MismatchError& e) {
      roots.record(e, r);
    }
    comm.barrier();  // still usable, and the check agrees on a barrier
  });
  counts.expect(5, "allreduce #0: rank 1 called allreduce (8 x float64, sum), rank 4 called allreduce "
                   "(32 x float64, max) while ranks 0, 2 and 3 called allreduce (32 x float64, sum)", {1, 4});
  roots.expect(5, "bcast #1: rank 0 called bcast (32 x float64, root 0) while ranks 1-4 called "
                  "bcast (32 x float64, root 3)", {0});
}

// Ranks configured with different algorithms never reach a collective:
// every rank's join card carries its settings, and the communicator is
// refused at creation (comm_join_card_test.cpp), before RCOLL_CHECK would
// see the calls differ.
TEST_P(CommCheck, DifferentAlgorithmSettingsAreRefusedAtCreation) {
  Options base = checked();
  base.allreduce_algo = AllreduceAlgo::ring;
  try {
    run_comms(GetParam(), 3, base, [&](Comm&) { ADD_FAILURE() << "a communicator was made"; },
              [](Options& o) { if (o.rank == 2) o.allreduce_algo = AllreduceAlgo::tree; });
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("allreduce (RCOLL_ALLREDUCE_ALGO) is 'ring' on ranks 0 and 1, 'tree' on "
                                         "rank 2"),
              std::string::npos)
        << e.what();
  }
}

TEST_P(CommCheck, MatchingCallsPassTheCheck) {
  run_comms(GetParam(), 3, checked(), [](Comm& comm) {
    std::vector<std::int64_t> data(1000, comm.rank() + 1);
    comm.allreduce(std::span<std::int64_t>(data), ReduceOp::sum);
    EXPECT_EQ(data[999], 6);
    std::vector<std::uint8_t> bytes(300, static_cast<std::uint8_t>(comm.rank()));
    comm.bcast(std::span<std::uint8_t>(bytes), 2);
    EXPECT_EQ(bytes[299], 2);
    comm.barrier();
  });
}

INSTANTIATE_TEST_SUITE_P(Backends, CommCheck, ::testing::Values("inproc", "tcp"));

// Without the check, over TCP: rank 1 passes a smaller count, rank 3 a
// larger one. Whatever
// the algorithm makes of it, it ends within the timeout, and the bytes past
// each rank's count stay untouched.
void expect_bounded_outcome(Options o, const std::function<void(Comm&, std::vector<float>&, std::size_t)>& call) {
  constexpr std::size_t big = 20000, small = 5000, guard = 4096;
  const auto timeout = 2s;
  o.timeout = timeout;
  o.calibrate = false;  // the 2 s budget is the call's; a first calibration under TSan takes over 1 s
  std::atomic<int> errors{0};
  auto start = Clock::now();
  run_comms("tcp", 4, o, [&](Comm& comm) {
    std::size_t count = comm.rank() == 1 ? small : comm.rank() == 3 ? big + 3000 : big;
    std::vector<float> data(count + guard, -7.0f);
    std::fill(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(count), 1.0f);
    try {
      call(comm, data, count);
    } catch (const Error&) {
      ++errors;
    }
    for (std::size_t i = count; i < data.size(); ++i)
      ASSERT_EQ(data[i], -7.0f) << "rank " << comm.rank() << " wrote past its buffer at element " << i;
  });
  EXPECT_LT(Clock::now() - start, timeout + 3s);
  EXPECT_GE(errors.load(), 1) << "a count mismatch went unnoticed on every rank";
}

TEST(CommWithoutCheck, AllreduceCountMismatchOverTcpEndsInAnErrorWithinTheTimeout) {
  for (auto algo : {AllreduceAlgo::ring, AllreduceAlgo::tree, AllreduceAlgo::recursive_doubling}) {
    SCOPED_TRACE(to_string(algo));
    Options o;
    o.allreduce_algo = algo;
    expect_bounded_outcome(o, [](Comm& comm, std::vector<float>& data, std::size_t count) {
      comm.allreduce(data.data(), count, DataType::float32, ReduceOp::sum);
    });
  }
}

TEST(CommWithoutCheck, BcastCountMismatchOverTcpEndsInAnErrorWithinTheTimeout) {
  for (auto algo : {BcastAlgo::binomial, BcastAlgo::scatter_allgather, BcastAlgo::chain}) {
    SCOPED_TRACE(to_string(algo));
    Options o;
    o.bcast_algo = algo;
    expect_bounded_outcome(o, [](Comm& comm, std::vector<float>& data, std::size_t count) {
      comm.bcast(data.data(), count, DataType::float32, 0);
    });
  }
}

}  // namespace
}  // namespace rcoll
