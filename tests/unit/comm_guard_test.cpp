// Misuse of a communicator that used to crash or corrupt data silently:
// two threads calling one Comm at once, a Comm used after it was moved
// from, and send and receive buffers that overlap partly. Each must be an
// InvalidArgument that names what went wrong, and leave the running call
// and the communicator intact.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "comm/comm_impl.hpp"
#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class CommGuard : public ::testing::TestWithParam<std::string> {};

// Rank 0's first thread waits in a recv that rank 1 answers only when told,
// so rank 0's second thread calls allreduce while the recv is certainly
// running: that second call must be refused at once, naming both calls,
// and the recv must still get its message.
TEST_P(CommGuard, ASecondThreadsCallIsRefusedAndTheFirstGoesOn) {
  std::atomic<bool> answer{false};
  Options base;
  base.timeout = 20s;
  test::run_comm_ranks(GetParam(), 2, base, [&](Comm& comm) {
    if (comm.rank() == 1) {
      while (!answer.load()) std::this_thread::sleep_for(1ms);
      const int value = 42;
      comm.send(&value, 1, DataType::int32, 0, 5);
    } else {
      int got = 0;
      std::size_t count = 0;
      std::thread first([&] { count = comm.recv(&got, 1, DataType::int32, 1, 5); });
      while (!comm.impl().call_guard().busy()) std::this_thread::sleep_for(1ms);
      std::vector<float> data(16, 1.0f);
      try {
        comm.allreduce(std::span<float>(data), ReduceOp::sum);
        ADD_FAILURE() << "the overlapping allreduce was not refused";
      } catch (const InvalidArgument& e) {
        const std::string what = e.what();
        EXPECT_TRUE(contains(what, "rank 0: allreduce called while recv (call #1) is still running on another "
                                   "thread; a communicator serves one call at a time (docs/THREADING.md)"))
            << what;
      }
      answer.store(true);
      first.join();
      EXPECT_EQ(count, 1u);
      EXPECT_EQ(got, 42);
    }
    // Still usable on both ranks, and the refused call took no sequence number.
    std::vector<int> v{comm.rank() + 1};
    comm.allreduce(std::span<int>(v), ReduceOp::sum);
    EXPECT_EQ(v[0], 3);
  });
}

// Partly overlapping send and recv (recv = send + 1 element) used to give
// wrong sums on every rank with no error. In place stays allowed.
TEST_P(CommGuard, PartlyOverlappingBuffersAreRefusedBeforeAnythingIsSent) {
  Options base;
  base.timeout = 20s;
  test::run_comm_ranks(GetParam(), 3, base, [&](Comm& comm) {
    constexpr std::size_t n = 1 << 20;
    std::vector<float> buffer(n + 1, 1.0f);
    try {
      comm.allreduce(buffer.data(), buffer.data() + 1, n, DataType::float32, ReduceOp::sum);
      ADD_FAILURE() << "rank " << comm.rank() << ": a partly overlapping allreduce was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_TRUE(contains(e.what(), "allreduce: send and recv buffers overlap partly (recv starts 4 bytes after "
                                     "send, 4194304 bytes each)"))
          << e.what();
    }
    try {
      comm.allreduce(buffer.data() + 1, buffer.data(), n, DataType::float32, ReduceOp::sum);
      ADD_FAILURE() << "rank " << comm.rank() << ": recv before send, overlapping, was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_TRUE(contains(e.what(), "send starts 4 bytes after recv")) << e.what();
    }
    // Adjacent (not overlapping) and in place both work, and nothing was left half-sent.
    std::vector<float> two(2 * n, 1.0f);
    comm.allreduce(two.data(), two.data() + n, n, DataType::float32, ReduceOp::sum);
    EXPECT_EQ(two[n], 3.0f);
    EXPECT_EQ(two[2 * n - 1], 3.0f);
    comm.allreduce(buffer.data(), buffer.data(), n, DataType::float32, ReduceOp::sum);
    EXPECT_EQ(buffer[0], 3.0f);
    EXPECT_EQ(buffer[n - 1], 3.0f);
  });
}

INSTANTIATE_TEST_SUITE_P(Backends, CommGuard, ::testing::Values("inproc", "tcp"));

// A moved-from Comm used to crash on rank(); every call on it now says what happened.
TEST(CommMovedFrom, EveryCallSaysItWasMovedFrom) {
  Options o;
  o.rank = 0;
  o.size = 1;
  Comm from = Comm::create(o);
  Comm to = std::move(from);
  auto expect_moved = [](const std::string& name, auto&& call) {
    try {
      call();
      ADD_FAILURE() << name << " on a moved-from Comm did not throw";
    } catch (const InvalidArgument& e) {
      EXPECT_TRUE(contains(e.what(), name + ": this Comm was moved from")) << e.what();
    }
  };
  int v = 1;
  expect_moved("rank", [&] { (void)from.rank(); });
  expect_moved("size", [&] { (void)from.size(); });
  expect_moved("transport_name", [&] { (void)from.transport_name(); });
  expect_moved("describe_plan", [&] { (void)from.describe_plan(); });
  expect_moved("allreduce", [&] { from.allreduce(&v, 1, DataType::int32, ReduceOp::sum); });
  expect_moved("bcast", [&] { from.bcast(&v, 1, DataType::int32, 0); });
  expect_moved("barrier", [&] { from.barrier(); });
  expect_moved("send", [&] { from.send(&v, 1, DataType::int32, 0, 0); });
  expect_moved("recv", [&] { (void)from.recv(&v, 1, DataType::int32, 0, 0); });
  EXPECT_EQ(to.rank(), 0);
  to.allreduce(&v, 1, DataType::int32, ReduceOp::sum);
  EXPECT_EQ(v, 1);
}

}  // namespace
}  // namespace rcoll
