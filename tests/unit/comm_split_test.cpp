// Sub-communicators (Comm::split, Comm::dup): a 2-D grid of row and column
// communicators running non-blocking collectives at the same time as the
// parent, every result against a serial reference; split inside split; dup
// of a split; a negative color; a sub-communicator's errors in its own
// ranks. Ranks as threads over TCP and in process, and RDMA in the guest;
// the grid also as processes on a FileStore.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"
#include "support/scratch_directory.hpp"
#include "support/transport_fixture.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;
using Ints = std::vector<std::int64_t>;

// A backend and a world size.
using World = std::pair<std::string, int>;

class Split : public test::OnBackend<World> {
 protected:
  void run(const std::function<void(Comm&)>& body) {
    Options base;
    base.timeout = 30s;
    test::run_comm_ranks(GetParam().first, GetParam().second, base, body);
  }
};

// Element i of `rank`'s contribution, distinct per communicator (`salt`).
Ints contribution(int rank, int salt, std::size_t count) {
  Ints v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = salt * 1000000 + rank * 1000 + static_cast<std::int64_t>(i);
  return v;
}

// The sum over `ranks` (ranks of the communicator the values came from).
Ints sum_of(const std::vector<int>& ranks, int salt, std::size_t count) {
  Ints sum(count, 0);
  for (int r : ranks) {
    Ints v = contribution(r, salt, count);
    for (std::size_t i = 0; i < count; ++i) sum[i] += v[i];
  }
  return sum;
}

std::vector<int> iota_ranks(int n) {
  std::vector<int> ranks(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) ranks[static_cast<std::size_t>(r)] = r;
  return ranks;
}

// Rows of 2 ranks (rank / 2) and columns (rank % 2): with the parent, three
// communicators over one transport, each running an iallreduce and the
// columns also an iallgather, all issued before any is waited for.
void run_grid(Comm& world) {
  const int n = world.size(), me = world.rank();
  constexpr int row_size = 2;
  Comm row = world.split(me / row_size, me);
  Comm column = world.split(me % row_size, me);
  ASSERT_TRUE(row.valid() && column.valid());
  EXPECT_EQ(row.size(), std::min(row_size, n - me / row_size * row_size));
  EXPECT_EQ(row.rank(), me % row_size);
  EXPECT_EQ(column.size(), (n - me % row_size + row_size - 1) / row_size);
  EXPECT_EQ(column.rank(), me / row_size);

  const std::size_t count = 1001;
  Ints in_world = contribution(me, 1, count), in_row = contribution(row.rank(), 2, count),
       in_column = contribution(column.rank(), 3, count);
  Ints out_world(count), out_row(count), out_column(count), gathered(static_cast<std::size_t>(column.size()));
  const std::int64_t mine = me;
  std::vector<Request> requests;
  requests.push_back(world.iallreduce(in_world.data(), out_world.data(), count, DataType::int64, ReduceOp::sum));
  requests.push_back(row.iallreduce(in_row.data(), out_row.data(), count, DataType::int64, ReduceOp::sum));
  requests.push_back(column.iallreduce(in_column.data(), out_column.data(), count, DataType::int64, ReduceOp::sum));
  requests.push_back(column.iallgather(&mine, gathered.data(), 1, DataType::int64));
  // A blocking call on the parent while the others are in flight.
  std::int64_t total = me;
  world.allreduce(&total, &total, 1, DataType::int64, ReduceOp::sum);
  wait_all(requests);

  EXPECT_EQ(total, std::int64_t{n} * (n - 1) / 2);
  EXPECT_EQ(out_world, sum_of(iota_ranks(n), 1, count));
  EXPECT_EQ(out_row, sum_of(iota_ranks(row.size()), 2, count));
  EXPECT_EQ(out_column, sum_of(iota_ranks(column.size()), 3, count));
  for (int c = 0; c < column.size(); ++c)
    EXPECT_EQ(gathered[static_cast<std::size_t>(c)], c * row_size + me % row_size) << "column rank " << c;
}

TEST_P(Split, GridRowsAndColumnsRunBesideTheParent) { run(run_grid); }

// The grid as real processes (2 x 3), forked before any thread of this
// test starts, joined through a FileStore on one directory over TCP; the
// odd ranks move their calls with a progress thread. A child exits 0
// only if every check held.
TEST(SplitProcesses, GridRowsAndColumnsRunBesideTheParent) {
  test::ScratchDirectory directory;
  constexpr int size = 6;
  std::vector<pid_t> children;
  for (int rank = 0; rank < size; ++rank) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) {
      int status = 1;
      try {
        Options options;
        options.rank = rank;
        options.size = size;
        options.transport = TransportKind::tcp;
        options.timeout = 30s;
        options.progress = rank % 2 == 1 ? Progress::thread : Progress::caller;
        FileStore store(directory.path());
        Comm world = Comm::create(options, store);
        run_grid(world);
        status = ::testing::Test::HasFailure() ? 1 : 0;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
      }
      std::fflush(nullptr);
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (int rank = 0; rank < size; ++rank) {
    int status = -1;
    const pid_t child = children[static_cast<std::size_t>(rank)];
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "rank " << rank << " status " << status;
  }
}

// A split of a split, ordered by a key that reverses the ranks, and a dup
// of a split: each sees its own ranks and sums, running at the same time.
TEST_P(Split, SplitInsideSplitAndDupOfASplit) {
  run([](Comm& world) {
    const int me = world.rank();
    Comm half = world.split(me % 2, me);
    Comm reversed = half.split(0, -half.rank());
    Comm twin = half.dup();
    ASSERT_TRUE(reversed.valid() && twin.valid());
    EXPECT_EQ(reversed.size(), half.size());
    EXPECT_EQ(reversed.rank(), half.size() - 1 - half.rank());
    EXPECT_EQ(twin.rank(), half.rank());
    EXPECT_EQ(twin.size(), half.size());
    // Plans are shared by size and layout, never across sizes.
    EXPECT_EQ(twin.describe_plan(), half.describe_plan());
    const std::string size_line = "plan on " + std::to_string(half.size()) + " ranks";
    EXPECT_EQ(half.describe_plan().rfind(size_line, 0), 0u) << half.describe_plan().substr(0, 80);
    EXPECT_EQ(world.describe_plan().rfind("plan on " + std::to_string(world.size()) + " ranks", 0), 0u);

    std::int64_t a = half.rank(), b = reversed.rank() * 10, c = 7;
    Request first = twin.iallreduce(std::span<std::int64_t>(&c, 1), ReduceOp::sum);
    Request second = reversed.iallreduce(std::span<std::int64_t>(&b, 1), ReduceOp::sum);
    half.allreduce(&a, &a, 1, DataType::int64, ReduceOp::sum);
    second.wait();
    first.wait();
    const std::int64_t n = half.size();
    EXPECT_EQ(a, n * (n - 1) / 2);
    EXPECT_EQ(b, 10 * n * (n - 1) / 2);
    EXPECT_EQ(c, 7 * n);
  });
}

TEST_P(Split, ANegativeColorGivesAnEmptyComm) {
  run([](Comm& world) {
    Comm part = world.split(world.rank() == 0 ? -1 : 5, 0);
    if (world.rank() == 0) {
      EXPECT_FALSE(part.valid());
      EXPECT_THROW(part.rank(), InvalidArgument);
      return;
    }
    ASSERT_TRUE(part.valid());
    EXPECT_EQ(part.size(), world.size() - 1);
    EXPECT_EQ(part.rank(), world.rank() - 1);
    std::int64_t one = 1;
    part.allreduce(&one, &one, 1, DataType::int64, ReduceOp::sum);
    EXPECT_EQ(one, world.size() - 1);
  });
}

// World ranks 1 and 3 form a communicator; its rank 0 waits in a barrier
// that its rank 1 never enters. The error names the sub-communicator's
// ranks, not the world's.
TEST_P(Split, ASubCommunicatorsTimeoutNamesItsOwnRanks) {
  if (GetParam().second < 4) GTEST_SKIP() << "needs 4 ranks";
  run([](Comm& world) {
    const int me = world.rank();
    Comm pair = world.split(me == 1 || me == 3 ? 0 : -1, me);
    if (me == 1) {
      try {
        pair.barrier({.timeout = 300ms});
        ADD_FAILURE() << "the barrier completed without its rank 1";
      } catch (const TimeoutError& e) {
        EXPECT_NE(std::string(e.what()).find("rank 0: barrier #0"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("timed out waiting for rank(s) 1"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("rank 1 has not joined"), std::string::npos) << e.what();
        EXPECT_EQ(e.waiting_for(), std::vector<int>{1});
      }
    }
    world.barrier();  // rank 3 waits here until rank 1's barrier has timed out
  });
}

// World ranks 0 and 1, reversed (child rank 0 is world rank 1): a message
// that does not fit names the sending peer by its rank in the child.
TEST_P(Split, AMessageThatDoesNotFitNamesThePeerInTheSubCommunicator) {
  if (GetParam().second < 2) GTEST_SKIP() << "needs 2 ranks";
  run([](Comm& world) {
    Comm pair = world.split(world.rank() < 2 ? 0 : -1, -world.rank());
    if (!pair.valid()) return;
    std::vector<std::int32_t> data(8, 5);
    if (pair.rank() == 1) {
      pair.send(data.data(), data.size(), DataType::int32, 0, 7);
      return;
    }
    try {
      pair.recv(data.data(), 4, DataType::int32, 1, 7);
      ADD_FAILURE() << "a message of 8 elements fit a buffer of 4";
    } catch (const MessageError& e) {
      EXPECT_EQ(e.peer(), 1) << e.what();
      EXPECT_EQ(e.rank(), 0) << e.what();
    }
  });
}

std::vector<World> worlds() {
  std::vector<World> list;
  for (int n : {1, 2, 5, 8}) list.emplace_back("inproc", n);
  for (int n : {3, 4}) list.emplace_back("tcp", n);
  for (int n : {2, 4}) list.emplace_back("rdma", n);
  return list;
}

INSTANTIATE_TEST_SUITE_P(Worlds, Split, ::testing::ValuesIn(worlds()), [](const auto& info) {
  return info.param.first + "_n" + std::to_string(info.param.second);
});

}  // namespace
}  // namespace rcoll
