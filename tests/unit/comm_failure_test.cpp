// What a failure leaves behind: a communicator that fails closes its
// connections and publishes why, so its peers fail at once with an error
// that names the first failure, and the other ranks' blocked calls find it
// in the store; Comm::abort ends the process with
// abort_exit_code and its reason reaches the others. Ranks as threads over
// TCP, joined through the in-memory bootstrap.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include "bootstrap/in_memory.hpp"
#include "comm/comm_impl.hpp"
#include "diagnostics/failure_report.hpp"
#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"
#include "support/run_ranks.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

void run_tcp_comms(int size, std::chrono::milliseconds timeout, const std::function<void(Comm&)>& body) {
  Options base;
  base.timeout = timeout;
  test::run_comm_ranks("tcp", size, base, body);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::unique_ptr<bootstrap::Bootstrap>> join_all(bootstrap::InMemoryRendezvous& rendezvous, int size) {
  std::vector<std::unique_ptr<bootstrap::Bootstrap>> b(static_cast<std::size_t>(size));
  test::run_ranks(size, [&](int r) { b[static_cast<std::size_t>(r)] = rendezvous.join(r, "", Deadline::after(5s)); });
  return b;
}

// Rank 3 fails on its own (a receive that times out after 300 ms) while the
// others run allreduces with a 30 s timeout: they must all fail within a
// few seconds, each naming rank 3's failure.
TEST(CommFailure, AFailedRankClosesItsConnectionsAndPeersFailFastNamingIt) {
  std::mutex mutex;
  std::vector<std::string> errors;
  auto start = Clock::now();
  run_tcp_comms(4, 30s, [&](Comm& comm) {
    std::vector<float> data(1 << 16, 1.0f);
    comm.allreduce(std::span<float>(data), ReduceOp::sum);  // every connection is up
    try {
      if (comm.rank() == 3) {
        comm.recv(data.data(), 1, DataType::float32, 2, 77, {.timeout = 300ms});
      } else {
        for (int i = 0; i < 1000; ++i) comm.allreduce(std::span<float>(data), ReduceOp::sum);
      }
      ADD_FAILURE() << "rank " << comm.rank() << " did not fail";
    } catch (const Error& e) {
      std::lock_guard lock(mutex);
      errors.push_back(e.what());
    }
    EXPECT_THROW(comm.barrier(), IoError);  // unusable afterwards
  });
  EXPECT_LT(Clock::now() - start, 10s) << "peers waited for their own timeout";
  ASSERT_EQ(errors.size(), 4u);
  for (const auto& what : errors) {
    if (what.rfind("rank 3:", 0) == 0) {
      EXPECT_TRUE(contains(what, "recv from rank 2 tag 77: timed out waiting for rank(s) 2")) << what;
    } else {
      EXPECT_TRUE(contains(what, "first failure: rank 3: recv from rank 2 tag 77: timed out")) << what;
    }
  }
}

// Rank 2 fails on its own after every connection is up; ranks 0 and 1
// then wait only on each other, with nothing pending with rank 2, so its
// closed connections tell them nothing. They must still fail within a few
// seconds (the failure watch finds rank 2's failure in the store), not at
// their 30 s timeout. (The ring case of CI's kill test: a rank whose left
// neighbour died before connecting, the failure going the other way round.)
TEST(CommFailure, RanksWaitingOnlyOnEachOtherHearOfAFailureElsewhere) {
  std::mutex mutex;
  std::vector<std::string> errors;
  auto start = Clock::now();
  run_tcp_comms(3, 30s, [&](Comm& comm) {
    std::vector<float> data(1 << 16, 1.0f);
    comm.allreduce(std::span<float>(data), ReduceOp::sum);  // every connection is up
    int other = 1 - comm.rank();                            // ranks 0 and 1 wait on each other
    try {
      if (comm.rank() == 2)
        comm.recv(data.data(), 1, DataType::float32, 0, 77, {.timeout = 300ms});
      else
        comm.recv(data.data(), 1, DataType::float32, other, 78);
      ADD_FAILURE() << "rank " << comm.rank() << " did not fail";
    } catch (const Error& e) {
      std::lock_guard lock(mutex);
      errors.push_back(e.what());
      if (comm.rank() != 2) EXPECT_NE(dynamic_cast<const IoError*>(&e), nullptr) << e.what();
    }
  });
  EXPECT_LT(Clock::now() - start, 10s) << "ranks waited for their own timeout";
  ASSERT_EQ(errors.size(), 3u);
  // The first of ranks 0 and 1 to look finds rank 2's failure; the other
  // may instead see that one's connection close. Both name rank 2's error.
  int found_in_store = 0;
  for (const auto& what : errors) {
    if (what.rfind("rank 2:", 0) == 0) continue;
    found_in_store += contains(what, "rank 2's communicator failed while this rank waited");
    EXPECT_TRUE(contains(what, "first failure: rank 2: recv from rank 0 tag 77: timed out")) << what;
  }
  EXPECT_GE(found_in_store, 1);
}

// Rank 1 leaves the job (its communicator destroyed) without sending what
// rank 0 waits for. Over inproc nothing tells rank 0; the store records the
// departure, and rank 0's wait must end naming rank 1 within a few seconds.
TEST(CommFailure, AWaitOnARankThatLeftTheJobEndsNamingIt) {
  std::string error;
  auto start = Clock::now();
  Options base;
  base.timeout = 30s;
  test::run_comm_ranks("inproc", 2, base, [&](Comm& comm) {
    if (comm.rank() == 1) return;
    int value = 0;
    try {
      comm.recv(&value, 1, DataType::int32, 1, 5);
      ADD_FAILURE() << "the receive completed";
    } catch (const IoError& e) {
      error = e.what();
      EXPECT_EQ(e.peer(), 1);
    }
  });
  EXPECT_LT(Clock::now() - start, 10s) << "rank 0 waited for its own timeout";
  EXPECT_TRUE(contains(error, "rank 0, peer 1: recv from rank 1 tag 5")) << error;
  EXPECT_TRUE(contains(error, "rank 1 left the job while this rank waited for it")) << error;
}

TEST(FailureReport, FollowsTheChainToTheEarliestReport) {
  bootstrap::InMemoryRendezvous rendezvous(4);
  auto b = join_all(rendezvous, 4);
  diagnostics::FailureReport(*b[3], 3, 4).publish_failure(2, "rank 3, peer 2: allreduce #5: peer closed the connection");
  diagnostics::FailureReport(*b[1], 1, 4).publish_failure(3, "rank 1, peer 3: allreduce #5: peer closed the connection");
  diagnostics::FailureReport zero(*b[0], 0, 4);
  EXPECT_EQ(zero.explain(1), "first failure: rank 3, peer 2: allreduce #5: peer closed the connection");
  EXPECT_EQ(zero.explain(2), "");  // rank 2 said nothing: the error names it already
  EXPECT_EQ(zero.explain(-1), "");
  EXPECT_FALSE(zero.find_abort());
  diagnostics::FailureReport(*b[2], 2, 4).publish_abort("out of\nmemory", 1s);
  diagnostics::FailureReport(*b[3], 3, 4).publish_abort("second abort loses", 1s);
  EXPECT_EQ(zero.find_abort(), "rank 2 aborted: out of\nmemory");
  EXPECT_EQ(zero.explain(1), "rank 2 aborted: out of\nmemory");
}

TEST(FailureReport, ACycleOfReportsEnds) {
  bootstrap::InMemoryRendezvous rendezvous(3);
  auto b = join_all(rendezvous, 3);
  diagnostics::FailureReport(*b[1], 1, 3).publish_failure(2, "one");
  diagnostics::FailureReport(*b[2], 2, 3).publish_failure(1, "two");
  EXPECT_EQ(diagnostics::FailureReport(*b[0], 0, 3).explain(1), "first failure: two");
}

// Ranks as threads: the abort ends the whole process, so it runs in a
// death-test child; the survivors' view is the multi-process test's.
TEST(CommAbortDeathTest, ExitsWithTheDocumentedStatusAndSaysWhy) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Options o;
        o.rank = 0;
        o.size = 1;
        Comm comm = Comm::create(o);
        comm.abort("checkpoint directory is full");
      },
      ::testing::ExitedWithCode(abort_exit_code), "rcoll: rank 0 aborted: checkpoint directory is full");
}

}  // namespace
}  // namespace rcoll
