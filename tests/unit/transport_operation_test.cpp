// Operations (transport/operation.hpp): schedules run on fibers, several
// outstanding on one thread per rank, driven by waits, test-style passes
// and blocking waits; timeouts and cancellation of one while others go on.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/algorithms.hpp"
#include "rcoll/errors.hpp"
#include "support/collective_job.hpp"
#include "support/run_ranks.hpp"
#include "transport/operation.hpp"

namespace rcoll::transport {
namespace {

using namespace std::chrono_literals;
using test::Job;

class Operations : public test::OnBackend<test::WorldParam> {};

// Three collectives started at once on every rank (an allreduce ring, a
// bcast, an allgather ring: pipelined, paced, with hooks), then waited for
// in the opposite order; every result against the serial reference.
TEST_P(Operations, SeveralOutstandingOnOneThreadPerRankAllComplete) {
  const auto& [kind, size] = GetParam();
  const Job job(kind, size);
  constexpr std::size_t count = 1000;  // multi-segment at the test segment size
  const auto expected_sum = test::reference(size, count, DataType::int32, ReduceOp::sum);
  test::run_ranks(job.size(), [&](int rank) {
    const auto input = test::make_input(rank, count, DataType::int32, ReduceOp::sum);
    std::vector<std::byte> sum(input.size());
    std::vector<std::int32_t> bcast(count), gathered(count * static_cast<std::size_t>(size));
    if (rank == 0)
      for (std::size_t i = 0; i < count; ++i) bcast[i] = static_cast<std::int32_t>(i * 7 + 1);
    std::vector<std::int32_t> mine(count, rank + 100);
    const collectives::Context c0 = job.context(rank, 0, "allreduce"), c1 = job.context(rank, 1, "bcast"),
                               c2 = job.context(rank, 2, "allgather");
    const collectives::Blocks blocks{count * sizeof(std::int32_t)};
    std::vector<OperationPtr> ops;
    ops.push_back(start(c0.transport, [&] {
      collectives::allreduce_ring(c0, input.data(), sum.data(), count, DataType::int32, ReduceOp::sum);
    }));
    ops.push_back(start(c1.transport, [&] { collectives::bcast_binomial(c1, bcast.data(), count * 4, 0); }));
    ops.push_back(start(c2.transport, [&] { collectives::allgather_ring(c2, mine.data(), gathered.data(), blocks); }));
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      drive_until(**it, Deadline::after(20s), LazyText("test wait"));
      (*it)->rethrow_if_failed();
    }
    EXPECT_EQ(suspended_operations(), 0u);
    EXPECT_EQ(sum, expected_sum) << "rank " << rank;
    for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(bcast[i], static_cast<std::int32_t>(i * 7 + 1)) << rank;
    for (int r = 0; r < size; ++r)
      for (std::size_t i = 0; i < count; ++i)
        ASSERT_EQ(gathered[static_cast<std::size_t>(r) * count + i], r + 100) << "rank " << rank << " block " << r;
  });
}

// A blocking collective (a wait_all outside every operation) drives the
// operations started before it; test-style passes (drive_once) finish the
// rest without blocking.
TEST_P(Operations, ABlockingCallAndTestPassesDriveTheOutstandingOnes) {
  const auto& [kind, size] = GetParam();
  const Job job(kind, size);
  constexpr std::size_t count = 300;
  const auto expected = test::reference(size, count, DataType::int64, ReduceOp::max);
  test::run_ranks(job.size(), [&](int rank) {
    const auto input = test::make_input(rank, count, DataType::int64, ReduceOp::max);
    std::vector<std::byte> first(input.size()), second(input.size());
    const collectives::Context c0 = job.context(rank, 0, "first"), c1 = job.context(rank, 1, "second");
    auto op = start(c0.transport, [&] {
      collectives::allreduce_ring(c0, input.data(), first.data(), count, DataType::int64, ReduceOp::max);
    });
    collectives::allreduce_ring(c1, input.data(), second.data(), count, DataType::int64, ReduceOp::max);
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (!op->finished() && std::chrono::steady_clock::now() < until) drive_once(c0.transport);
    ASSERT_TRUE(op->finished());
    op->rethrow_if_failed();
    EXPECT_EQ(first, expected);
    EXPECT_EQ(second, expected);
  });
}

// One operation's deadline passes (its peer never sends) while another on
// the same thread completes; the late one ends with a TimeoutError naming
// its step, the other with the right data.
TEST_P(Operations, ATimeoutEndsOnlyItsOwnOperation) {
  const auto& [kind, size] = GetParam();
  if (size < 2) GTEST_SKIP() << "needs a peer";
  const Job job(kind, size);
  test::run_ranks(job.size(), [&](int rank) {
    const collectives::Context c0 = job.context(rank, 0, "late", 0, 300ms), c1 = job.context(rank, 1, "bcast");
    std::int64_t never = 0;
    OperationPtr late;
    if (rank == 1) {
      late = start(c0.transport, [&] {
        RequestPtr r = c0.transport.irecv(0, c0.tag(0), &never, sizeof never);
        wait(c0.transport, r, c0.deadline, LazyText("receive that never comes"));
      });
    }
    std::vector<std::int32_t> data(100, rank == 0 ? 5 : 0);
    auto bcast = start(c1.transport, [&] { collectives::bcast_binomial(c1, data.data(), data.size() * 4, 0); });
    drive_until(*bcast, Deadline::after(20s), LazyText("bcast"));
    bcast->rethrow_if_failed();
    for (auto v : data) ASSERT_EQ(v, 5);
    if (late) {
      drive_until(*late, Deadline::after(20s), LazyText("late"));
      try {
        late->rethrow_if_failed();
        ADD_FAILURE() << "the late receive did not time out";
      } catch (const TimeoutError& e) {
        EXPECT_NE(std::string(e.what()).find("receive that never comes"), std::string::npos) << e.what();
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Worlds, Operations,
                         ::testing::Values(test::WorldParam{"inproc", 1}, test::WorldParam{"inproc", 2},
                                           test::WorldParam{"inproc", 3}, test::WorldParam{"inproc", 5},
                                           test::WorldParam{"tcp", 2}, test::WorldParam{"tcp", 4},
                                           test::WorldParam{"rdma", 2}, test::WorldParam{"rdma", 3}),
                         [](const auto& info) { return info.param.first + "_n" + std::to_string(info.param.second); });

// A cancelled operation unwinds: its wait throws, its receive is withdrawn
// (a message sent afterwards does not land in its buffer), and it leaves
// the thread's suspended list.
TEST(Operation, CancelUnwindsItAndWithdrawsItsReceive) {
  const Job job("inproc", 2);
  const collectives::Context r0 = job.context(0, 0, "sender"), r1 = job.context(1, 0, "receiver");
  std::int64_t buffer = -1;
  bool unwound = false;
  auto op = start(r1.transport, [&] {
    struct Marker {
      bool& flag;
      ~Marker() { flag = true; }
    } marker{unwound};
    RequestPtr r = r1.transport.irecv(0, r1.tag(0), &buffer, sizeof buffer);
    wait(r1.transport, r, r1.deadline, LazyText("receive"));
  });
  ASSERT_FALSE(op->finished());
  EXPECT_EQ(suspended_operations(), 1u);
  op->cancel();
  EXPECT_TRUE(op->finished());
  EXPECT_TRUE(unwound);
  EXPECT_EQ(suspended_operations(), 0u);
  EXPECT_THROW(op->rethrow_if_failed(), IoError);
  const std::int64_t value = 42;
  RequestPtr s = r0.transport.isend(1, r0.tag(0), &value, sizeof value);
  wait(r0.transport, s, Deadline::after(5s), LazyText("send"));
  for (int i = 0; i < 100; ++i) r1.transport.progress();
  EXPECT_EQ(buffer, -1) << "the withdrawn receive's buffer was written";
}

// Destroying a pending operation cancels it; nothing is left suspended.
TEST(Operation, DestroyingAPendingOperationCancelsIt) {
  const Job job("inproc", 2);
  const collectives::Context r1 = job.context(1, 0, "receiver");
  std::int64_t buffer = 0;
  {
    auto op = start(r1.transport, [&] {
      RequestPtr r = r1.transport.irecv(0, r1.tag(0), &buffer, sizeof buffer);
      wait(r1.transport, r, r1.deadline, LazyText("receive"));
    });
    EXPECT_EQ(suspended_operations(), 1u);
  }
  EXPECT_EQ(suspended_operations(), 0u);
}

// An operation keeps its own wait observer and spin mode: what it installs
// does not leak to the code that resumes it, and it finds its own again.
TEST(Operation, KeepsItsOwnWaitScope) {
  const Job job("inproc", 2);
  const collectives::Context r0 = job.context(0, 0, "sender"), r1 = job.context(1, 0, "receiver");
  std::int64_t buffer = 0;
  WaitScope inside_after{};
  auto op = start(r1.transport, [&] {
    ScopedWaitObserver scope(nullptr, SpinMode::pure);
    RequestPtr r = r1.transport.irecv(0, r1.tag(0), &buffer, sizeof buffer);
    wait(r1.transport, r, r1.deadline, LazyText("receive"));
    inside_after = exchange_wait_scope({});
    exchange_wait_scope(inside_after);
  });
  const WaitScope outside = exchange_wait_scope({});
  exchange_wait_scope(outside);
  EXPECT_EQ(outside.spin, SpinMode::yield) << "the operation's scope leaked to its caller";
  const std::int64_t value = 7;
  RequestPtr s = r0.transport.isend(1, r0.tag(0), &value, sizeof value);
  wait(r0.transport, s, Deadline::after(5s), LazyText("send"));
  drive_until(*op, Deadline::after(5s), LazyText("wait"));
  op->rethrow_if_failed();
  EXPECT_EQ(buffer, 7);
  EXPECT_EQ(inside_after.spin, SpinMode::pure);
}

}  // namespace
}  // namespace rcoll::transport
