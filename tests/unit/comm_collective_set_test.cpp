// The MPI-style set through the public API: every call with the plan's
// choice on TCP and in-process ranks against a serial reference, the
// in-place forms, argument checks that raise InvalidArgument before
// anything is sent (the communicator stays usable), and RCOLL_CHECK
// fingerprints that tell v-variant counts apart. The schedules themselves,
// every algorithm forced, are the collectives_*_test suites.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;

Options base_options() {
  Options o;
  o.timeout = 20s;
  return o;
}

// Element i of rank r's block: distinct across ranks and positions.
std::int32_t value(int r, std::size_t i) { return static_cast<std::int32_t>(r * 100000 + static_cast<int>(i)); }

std::vector<std::int32_t> block_of(int r, std::size_t count) {
  std::vector<std::int32_t> b(count);
  for (std::size_t i = 0; i < count; ++i) b[i] = value(r, i);
  return b;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class CollectiveSet : public ::testing::TestWithParam<std::pair<std::string, int>> {
 protected:
  void run(const std::function<void(Comm&)>& body) {
    test::run_comm_ranks(GetParam().first, GetParam().second, base_options(), body);
  }
};

// Sizes that fall in different plan ranges: tiny, odd, and a few segments.
const std::size_t kCounts[] = {0, 1, 333, 70001};

TEST_P(CollectiveSet, AllgatherAndGatherDeliverEveryBlockInRankOrder) {
  run([](Comm& comm) {
    const int n = comm.size();
    for (std::size_t count : kCounts) {
      std::vector<std::int32_t> expected;
      for (int r = 0; r < n; ++r) {
        auto b = block_of(r, count);
        expected.insert(expected.end(), b.begin(), b.end());
      }
      const auto mine = block_of(comm.rank(), count);
      std::vector<std::int32_t> all(expected.size(), -1);
      comm.allgather(std::span<const std::int32_t>(mine), std::span<std::int32_t>(all));
      EXPECT_EQ(all, expected) << "allgather count " << count;
      // In place: the own block already sits at rank * count.
      std::vector<std::int32_t> inplace(expected.size(), -1);
      std::copy(mine.begin(), mine.end(), inplace.begin() + static_cast<std::ptrdiff_t>(count * comm.rank()));
      comm.allgather(in_place, inplace.data(), count, DataType::int32);
      EXPECT_EQ(inplace, expected) << "allgather in place count " << count;
      for (int root = 0; root < n; ++root) {
        std::vector<std::int32_t> gathered(comm.rank() == root ? expected.size() : 0, -1);
        comm.gather(std::span<const std::int32_t>(mine), std::span<std::int32_t>(gathered), root);
        if (comm.rank() == root) EXPECT_EQ(gathered, expected) << "gather count " << count << " root " << root;
      }
    }
  });
}

TEST_P(CollectiveSet, ScatterHandsEachRankItsBlock) {
  run([](Comm& comm) {
    const int n = comm.size();
    for (std::size_t count : kCounts) {
      for (int root = 0; root < n; ++root) {
        std::vector<std::int32_t> all;
        if (comm.rank() == root)
          for (int r = 0; r < n; ++r) {
            auto b = block_of(r + 7, count);
            all.insert(all.end(), b.begin(), b.end());
          }
        std::vector<std::int32_t> mine(count, -1);
        comm.scatter(std::span<const std::int32_t>(all), std::span<std::int32_t>(mine), root);
        EXPECT_EQ(mine, block_of(comm.rank() + 7, count)) << "count " << count << " root " << root;
      }
    }
  });
}

TEST_P(CollectiveSet, ReduceAndReduceScatterMatchTheSerialSums) {
  run([](Comm& comm) {
    const int n = comm.size();
    for (std::size_t count : kCounts) {
      const std::size_t total = count * static_cast<std::size_t>(n);
      std::vector<std::int64_t> input(total), sums(total, 0);
      for (std::size_t i = 0; i < total; ++i) {
        input[i] = static_cast<std::int64_t>(i % 1000) * (comm.rank() + 1);
        for (int r = 0; r < n; ++r) sums[i] += static_cast<std::int64_t>(i % 1000) * (r + 1);
      }
      for (int root = 0; root < n; ++root) {
        std::vector<std::int64_t> out(comm.rank() == root ? total : 0, -1);
        comm.reduce(std::span<const std::int64_t>(input), std::span<std::int64_t>(out), ReduceOp::sum, root);
        if (comm.rank() == root) EXPECT_EQ(out, sums) << "reduce count " << total << " root " << root;
      }
      std::vector<std::int64_t> block(count, -1);
      comm.reduce_scatter(std::span<const std::int64_t>(input), std::span<std::int64_t>(block), ReduceOp::sum);
      const auto first = sums.begin() + static_cast<std::ptrdiff_t>(count * comm.rank());
      EXPECT_EQ(block, std::vector<std::int64_t>(first, first + static_cast<std::ptrdiff_t>(count)))
          << "reduce_scatter count " << count;
      // In place: the input is the buffer, the result its first block.
      std::vector<std::int64_t> buf = input;
      comm.reduce_scatter(in_place, buf.data(), count, DataType::int64, ReduceOp::sum);
      EXPECT_TRUE(std::equal(block.begin(), block.end(), buf.begin())) << "reduce_scatter in place count " << count;
    }
  });
}

TEST_P(CollectiveSet, AlltoallExchangesEveryPairOfBlocks) {
  run([](Comm& comm) {
    const int n = comm.size();
    for (std::size_t count : kCounts) {
      std::vector<std::int32_t> send, expected;
      for (int r = 0; r < n; ++r) {
        auto to_r = block_of(comm.rank() * n + r, count);  // from me to r
        send.insert(send.end(), to_r.begin(), to_r.end());
        auto from_r = block_of(r * n + comm.rank(), count);  // from r to me
        expected.insert(expected.end(), from_r.begin(), from_r.end());
      }
      std::vector<std::int32_t> recv(send.size(), -1);
      comm.alltoall(std::span<const std::int32_t>(send), std::span<std::int32_t>(recv));
      EXPECT_EQ(recv, expected) << "count " << count;
    }
  });
}

// v-variants: rank r contributes (r * 37) % 5 elements (some ranks none),
// blocks placed in reverse rank order with a one-element gap.
struct VLayout {
  std::vector<std::size_t> counts, displs;
  std::size_t extent = 0;
  explicit VLayout(int n) : counts(static_cast<std::size_t>(n)), displs(static_cast<std::size_t>(n)) {
    for (int r = n - 1; r >= 0; --r) {
      counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>((r * 37) % 5);
      displs[static_cast<std::size_t>(r)] = extent;
      extent += counts[static_cast<std::size_t>(r)] + 1;
    }
  }
};

TEST_P(CollectiveSet, VariantsPlaceBlocksWhereTheDisplacementsSay) {
  run([](Comm& comm) {
    const int n = comm.size();
    const VLayout v(n);
    const auto me = static_cast<std::size_t>(comm.rank());
    const auto mine = block_of(comm.rank(), v.counts[me]);
    std::vector<std::int32_t> expected(v.extent, -1);
    for (int r = 0; r < n; ++r) {
      auto b = block_of(r, v.counts[static_cast<std::size_t>(r)]);
      std::copy(b.begin(), b.end(), expected.begin() + static_cast<std::ptrdiff_t>(v.displs[static_cast<std::size_t>(r)]));
    }
    std::vector<std::int32_t> all(v.extent, -1);
    comm.allgatherv(mine.data(), mine.size(), all.data(), v.counts, v.displs, DataType::int32);
    EXPECT_EQ(all, expected) << "allgatherv";
    for (int root = 0; root < n; ++root) {
      std::vector<std::int32_t> gathered(v.extent, -1);
      comm.gatherv(mine.data(), mine.size(), gathered.data(), v.counts, v.displs, DataType::int32, root);
      if (comm.rank() == root) EXPECT_EQ(gathered, expected) << "gatherv root " << root;
      std::vector<std::int32_t> got(v.counts[me], -1);
      comm.scatterv(comm.rank() == root ? expected.data() : nullptr, v.counts, v.displs, got.data(), got.size(),
                    DataType::int32, root);
      EXPECT_EQ(got, mine) << "scatterv root " << root;
    }
  });
}

TEST_P(CollectiveSet, ReduceScatterVAndAlltoallvHandleUnevenBlocks) {
  run([](Comm& comm) {
    const int n = comm.size();
    const VLayout v(n);
    const auto me = static_cast<std::size_t>(comm.rank());
    const std::size_t total = std::accumulate(v.counts.begin(), v.counts.end(), std::size_t{0});
    std::vector<float> input(total);
    for (std::size_t i = 0; i < total; ++i) input[i] = static_cast<float>(i + 1) * static_cast<float>(comm.rank() + 1);
    std::vector<float> block(v.counts[me], -1.0f);
    comm.reduce_scatter_v(input.data(), block.data(), v.counts, DataType::float32, ReduceOp::sum);
    const std::size_t first = std::accumulate(v.counts.begin(), v.counts.begin() + static_cast<std::ptrdiff_t>(me),
                                              std::size_t{0});
    for (std::size_t i = 0; i < block.size(); ++i)
      EXPECT_EQ(block[i], static_cast<float>(first + i + 1) * static_cast<float>(n * (n + 1) / 2)) << i;
    // alltoallv: rank r sends (r + q) % 3 elements to q, packed in order.
    auto amount = [](int from, int to) { return static_cast<std::size_t>((from + to) % 3); };
    std::vector<std::size_t> sc(static_cast<std::size_t>(n)), sd(sc.size()), rc(sc.size()), rd(sc.size());
    std::size_t s_total = 0, r_total = 0;
    for (int q = 0; q < n; ++q) {
      const auto i = static_cast<std::size_t>(q);
      sc[i] = amount(comm.rank(), q), sd[i] = s_total, s_total += sc[i];
      rc[i] = amount(q, comm.rank()), rd[i] = r_total, r_total += rc[i];
    }
    std::vector<std::int32_t> send(s_total), recv(r_total, -1), expected(r_total);
    for (int q = 0; q < n; ++q)
      for (std::size_t k = 0; k < sc[static_cast<std::size_t>(q)]; ++k)
        send[sd[static_cast<std::size_t>(q)] + k] = value(comm.rank() * n + q, k);
    for (int q = 0; q < n; ++q)
      for (std::size_t k = 0; k < rc[static_cast<std::size_t>(q)]; ++k)
        expected[rd[static_cast<std::size_t>(q)] + k] = value(q * n + comm.rank(), k);
    comm.alltoallv(send.data(), sc, sd, recv.data(), rc, rd, DataType::int32);
    EXPECT_EQ(recv, expected);
  });
}

INSTANTIATE_TEST_SUITE_P(Worlds, CollectiveSet,
                         ::testing::Values(std::pair<std::string, int>{"tcp", 3}, std::pair<std::string, int>{"inproc", 5}),
                         [](const auto& info) { return info.param.first + "_n" + std::to_string(info.param.second); });

// ------------------------------------------------------------ argument checks

// `call` raises InvalidArgument containing `part` on every rank (or on
// rank `only` alone, the others not calling), and the communicator still
// runs a barrier afterwards.
void expect_refused(const std::function<void(Comm&)>& call, const std::string& part, int only = -1) {
  test::run_comm_ranks("inproc", 3, base_options(), [&](Comm& comm) {
    if (only >= 0 && comm.rank() != only) {
      comm.barrier();
      return;
    }
    try {
      call(comm);
      ADD_FAILURE() << "no error; expected: " << part;
    } catch (const InvalidArgument& e) {
      EXPECT_TRUE(contains(e.what(), part)) << e.what();
    }
    comm.barrier();
  });
}

TEST(CollectiveSetArguments, AreCheckedBeforeAnythingIsSent) {
  std::vector<std::int32_t> a(30), b(30);
  const std::vector<std::size_t> three{1, 1, 1}, two{1, 1}, spread{0, 1, 2}, clash{0, 0, 5};
  expect_refused([&](Comm& c) { c.allgatherv(a.data(), 1, b.data(), two, two, DataType::int32); },
                 "recv counts and displacements must have 3 entries each (one per rank), got 2 and 2");
  expect_refused([&](Comm& c) { c.allgatherv(a.data(), 1, b.data(), three, clash, DataType::int32); },
                 "recv blocks of ranks 0 (1 at 0) and 1 (1 at 0) overlap");
  expect_refused([&](Comm& c) { c.allgatherv(a.data(), 2, b.data(), three, spread, DataType::int32); },
                 "count 2 differs from counts[");
  expect_refused([&](Comm& c) { c.allgather(b.data() + 2, b.data(), 4, DataType::int32); }, "overlap");
  expect_refused([&](Comm& c) { c.alltoall(in_place, b.data(), 4, DataType::int32); }, "no in-place form");
  expect_refused([&](Comm& c) { c.gather(a.data(), b.data(), 4, DataType::int32, 3); }, "root 3 is outside 0..2");
  expect_refused([&](Comm& c) { c.reduce(in_place, b.data(), 4, DataType::int32, ReduceOp::sum, 0); },
                 "rank 1: reduce: rcoll::in_place is the root's form only", 1);
  expect_refused(
      [&](Comm& c) {
        c.allgather(std::span<const std::int32_t>(a.data(), 4), std::span<std::int32_t>(b.data(), 11));
      },
      "allgather: recv span has 11 elements, expected 12");
  const std::vector<std::size_t> past{1, 1, 9}, at_displs{0, 1, 22};
  expect_refused(
      [&](Comm& c) {
        c.allgatherv(std::span<const std::int32_t>(a.data(), past[static_cast<std::size_t>(c.rank())]),
                     std::span<std::int32_t>(b.data(), 30), past, at_displs);
      },
      "allgatherv: recv block of rank 2 (9 at 22) runs past the span's 30 elements");
}

TEST(CollectiveSetCheck, RanksThatDisagreeOnVCountsRaiseMismatchError) {
  Options o = base_options();
  o.check = true;
  test::run_comm_ranks("inproc", 3, o, [](Comm& comm) {
    std::vector<std::size_t> counts{1, 1, 1}, displs{0, 1, 2};
    if (comm.rank() == 2) displs = {3, 1, 2};  // a different layout on one rank
    std::vector<std::int32_t> send(1, comm.rank()), recv(5, -1);
    try {
      comm.allgatherv(send.data(), 1, recv.data(), counts, displs, DataType::int32);
      ADD_FAILURE() << "no MismatchError";
    } catch (const MismatchError& e) {
      EXPECT_TRUE(contains(e.what(), "rank 2 called allgatherv (3 x int32) with counts and displacements hashing to"))
          << e.what();
      EXPECT_EQ(e.ranks(), std::vector<int>{2});
    }
    comm.barrier();
  });
}

}  // namespace
}  // namespace rcoll
