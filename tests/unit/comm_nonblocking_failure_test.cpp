// What becomes of issued calls when something goes wrong: one that times
// out breaks the communicator like a blocking call and fails the others
// outstanding; a Request destroyed while its call is pending, and a
// communicator destroyed with calls pending, break the communicator down
// so that the peers waiting for this rank fail at once, not at their
// timeout; a message that does not fit fails its irecv only. Ranks as
// threads over TCP (and in process), joined through the in-memory
// bootstrap, with calls moved by the caller's thread or by a progress
// thread (Options::progress).
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// `param`: a backend, with "_thread" after it for communicators with a progress thread.
void run_comms(const std::string& param, int size, const std::function<void(Comm&)>& body) {
  Options base;
  base.timeout = 30s;
  const auto cut = param.find("_thread");
  if (cut != std::string::npos) base.progress = Progress::thread;
  test::run_comm_ranks(param.substr(0, cut), size, base, body);
}

// Rank 1's part in each test: a receive from rank 0 that only ends when
// rank 0 fails; returns the IoError's text.
std::string failure_while_receiving_from_rank_0(Comm& comm) {
  int value = 0;
  try {
    comm.recv(&value, 1, DataType::int32, 0, 9);
    ADD_FAILURE() << "rank 1's receive completed";
  } catch (const IoError& e) {
    return e.what();
  }
  return {};
}

class NonBlockingFailure : public ::testing::TestWithParam<std::string> {};

// Rank 0 issues a barrier with a 300 ms timeout that rank 1 never enters,
// then an allreduce; rank 1 waits for a message from rank 0. The barrier
// times out naming rank 1, the allreduce fails as the communicator is
// broken, and rank 1's wait ends long before its 30 s timeout.
TEST_P(NonBlockingFailure, AnIssuedCallThatTimesOutBreaksTheCommunicatorAndFailsTheOthers) {
  auto start = Clock::now();
  std::string rank1_error;
  run_comms(GetParam(), 2, [&](Comm& comm) {
    int value = 1;
    if (comm.rank() == 1) {
      rank1_error = failure_while_receiving_from_rank_0(comm);
      return;
    }
    Request barrier = comm.ibarrier({.timeout = 300ms});
    Request allreduce = comm.iallreduce(&value, 1, DataType::int32, ReduceOp::sum);
    try {
      barrier.wait();
      ADD_FAILURE() << "the barrier completed";
    } catch (const TimeoutError& e) {
      EXPECT_TRUE(contains(e.what(), "rank 0: barrier #0")) << e.what();
      EXPECT_TRUE(contains(e.what(), "rank 1 has not joined")) << e.what();
    }
    EXPECT_FALSE(barrier.active());
    try {
      allreduce.wait();
      ADD_FAILURE() << "the allreduce completed";
    } catch (const IoError& e) {
      EXPECT_TRUE(contains(e.what(), "allreduce #1")) << e.what();
      EXPECT_TRUE(contains(e.what(), "communicator is unusable after an earlier failure: rank 0: barrier #0"))
          << e.what();
    }
    EXPECT_THROW(comm.iallreduce(&value, 1, DataType::int32, ReduceOp::sum), IoError);
  });
  EXPECT_LT(Clock::now() - start, 10s);
  EXPECT_TRUE(contains(rank1_error, "barrier #0")) << "rank 1 names rank 0's failure: " << rank1_error;
}

// Rank 0 drops the Request of a receive rank 1 will never satisfy, while
// rank 1 waits for a message from rank 0: rank 0's communicator breaks
// down naming the dropped call, and rank 1 fails at once.
TEST_P(NonBlockingFailure, ARequestDestroyedWhilePendingBreaksTheCommunicatorAndItsPeersFailFast) {
  auto start = Clock::now();
  std::string rank1_error;
  run_comms(GetParam(), 2, [&](Comm& comm) {
    int value = 0;
    if (comm.rank() == 1) {
      rank1_error = failure_while_receiving_from_rank_0(comm);
      return;
    }
    { Request dropped = comm.irecv(&value, 1, DataType::int32, 1, 4); }
    try {
      comm.barrier();
      ADD_FAILURE() << "the barrier ran on a broken communicator";
    } catch (const IoError& e) {
      EXPECT_TRUE(contains(e.what(), "recv from rank 1 tag 4: its request was destroyed while the call was pending"))
          << e.what();
    }
  });
  EXPECT_LT(Clock::now() - start, 10s);
  EXPECT_TRUE(contains(rank1_error, "its request was destroyed while the call was pending")) << rank1_error;
}

// Rank 0's communicator goes away with an issued receive pending; the
// Request, which outlives it, then reports why. Rank 1 fails at once.
TEST_P(NonBlockingFailure, ACommunicatorDestroyedWithCallsPendingFailsThemAndItsPeers) {
  auto start = Clock::now();
  std::string rank1_error;
  std::optional<Request> orphan;
  int orphan_value = 0;
  run_comms(GetParam(), 2, [&](Comm& comm) {
    if (comm.rank() == 0) {
      orphan = comm.irecv(&orphan_value, 1, DataType::int32, 1, 4);
      return;  // the communicator is destroyed here
    }
    rank1_error = failure_while_receiving_from_rank_0(comm);
  });
  ASSERT_TRUE(orphan.has_value());
  try {
    orphan->wait();
    ADD_FAILURE() << "the orphaned receive completed";
  } catch (const IoError& e) {
    EXPECT_TRUE(contains(e.what(), "destroyed with 1 calls pending: recv from rank 1 tag 4")) << e.what();
  }
  EXPECT_FALSE(orphan->active());
  EXPECT_LT(Clock::now() - start, 10s);
  EXPECT_TRUE(contains(rank1_error, "destroyed with 1 calls pending")) << rank1_error;
}

// A message longer than its irecv fails that receive alone (MessageError,
// as in a blocking recv); an allreduce issued beside it completes.
TEST_P(NonBlockingFailure, AMessageThatDoesNotFitFailsItsReceiveOnly) {
  run_comms(GetParam(), 2, [&](Comm& comm) {
    std::vector<int> data(100, 1);
    int small = 0;
    std::vector<int> sum(8, comm.rank() + 1);
    if (comm.rank() == 0) {
      Request receive = comm.irecv(&small, 1, DataType::int32, 1, 6);
      Request allreduce = comm.iallreduce(sum.data(), sum.size(), DataType::int32, ReduceOp::sum);
      EXPECT_THROW(receive.wait(), MessageError);
      allreduce.wait();
    } else {
      comm.send(data.data(), data.size(), DataType::int32, 0, 6);
      comm.allreduce(sum.data(), sum.size(), DataType::int32, ReduceOp::sum);
    }
    EXPECT_EQ(sum, std::vector<int>(8, 3));
    comm.barrier();
  });
}

INSTANTIATE_TEST_SUITE_P(Backends, NonBlockingFailure,
                         ::testing::Values("tcp", "inproc", "tcp_thread", "inproc_thread"));

}  // namespace
}  // namespace rcoll
