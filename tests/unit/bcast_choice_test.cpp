// The bcast cost model on a host whose ranks share few cores: the link
// bytes each algorithm moves, the term they add, and the choice table's
// exactness with it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "collectives/choose.hpp"
#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"

namespace rcoll::collectives {
namespace {

// Roughly what calibration measured for 4 TCP ranks on a 2-core host.
constexpr LinkCost loopback{37e-6, 1 / 1.55e9, 1 / 50e9};

// What a bcast moves over all links together, counted per link rather
// than per rank: the independent count bcast_rank_copies is checked against.
double bcast_link_bytes(BcastAlgo algo, std::size_t bytes, int size) {
  const double s = static_cast<double>(bytes);
  const double to_every_rank = (size - 1) * s;
  if (algo != BcastAlgo::scatter_allgather) return to_every_rank;
  double scattered_chunks = 0;  // chunks each non-root rank receives in the scatter, summed
  for (int v = 1; v < size; ++v) scattered_chunks += binomial_subtree_size(v, size);
  return to_every_rank + s / size * scattered_chunks;
}

TEST(BcastLinkBytes, TreesAndChainsMoveEachByteOncePerReceiver) {
  for (int size : {2, 3, 4, 7, 16})
    for (BcastAlgo algo : {BcastAlgo::binomial, BcastAlgo::chain})
      EXPECT_DOUBLE_EQ(bcast_link_bytes(algo, 1000, size), 1000.0 * (size - 1)) << size;
  // 4 ranks: the scatter hands rank 2 two chunks and ranks 1 and 3 one each
  // (4 quarter chunks = S), then the ring allgather moves 3 S.
  EXPECT_DOUBLE_EQ(bcast_link_bytes(BcastAlgo::scatter_allgather, 1000, 4), 4000.0);
  // 2 ranks: the scatter sends the other half, the allgather the half back.
  EXPECT_DOUBLE_EQ(bcast_link_bytes(BcastAlgo::scatter_allgather, 1000, 2), 1500.0);
}

TEST(BcastCost, EveryLinkByteIsCopiedOnceBySenderAndReceiver) {
  for (int size : {1, 2, 3, 4, 7, 16})
    for (BcastAlgo algo : {BcastAlgo::binomial, BcastAlgo::scatter_allgather, BcastAlgo::chain}) {
      double copies = 0;
      for (int v = 0; v < size; ++v) copies += bcast_rank_copies(algo, 1000, v, size);
      EXPECT_NEAR(copies, 2 * bcast_link_bytes(algo, 1000, size), 1e-9) << to_string(algo) << " " << size;
    }
}

TEST(BcastCost, SharedCoresAddTheBusiestCoresCopies) {
  const std::size_t s = 1 << 20;
  const double S = s;
  // 4 ranks round robin on 2 cores: core 0 holds ranks 0 and 2.
  // Tree 0 -> 2 -> 3, 0 -> 1: ranks 0 and 2 copy 2 S each.
  EXPECT_DOUBLE_EQ(bcast_busiest_core(BcastAlgo::binomial, s, 4, 2), 4 * S);
  // Chain 0 -> 1 -> 2 -> 3: 1 + 2 on core 0, 2 + 1 on core 1.
  EXPECT_DOUBLE_EQ(bcast_busiest_core(BcastAlgo::chain, s, 4, 2), 3 * S);
  // Scatter (3/4 S out of the root, 1/2 S into rank 2 and 1/4 S on) and the
  // ring allgather (3/4 S in and out of every rank): 9/4 S on ranks 0 and 2.
  EXPECT_DOUBLE_EQ(bcast_busiest_core(BcastAlgo::scatter_allgather, s, 4, 2), 4.5 * S);
  EXPECT_EQ(bcast_cost(BcastAlgo::scatter_allgather, s, 4, loopback, 1 << 20, 2), HUGE_VAL);  // no candidate
  for (BcastAlgo algo : {BcastAlgo::binomial, BcastAlgo::chain}) {
    const double alone = bcast_cost(algo, s, 4, loopback, 1 << 20);
    EXPECT_DOUBLE_EQ(bcast_cost(algo, s, 4, loopback, 1 << 20, 0), alone);
    EXPECT_DOUBLE_EQ(bcast_cost(algo, s, 4, loopback, 1 << 20, 4), alone);  // a core per rank
    EXPECT_DOUBLE_EQ(bcast_cost(BcastAlgo::scatter_allgather, s, 4, loopback, 1 << 20, 4),
                     bcast_cost(BcastAlgo::scatter_allgather, s, 4, loopback, 1 << 20));
    EXPECT_NEAR(bcast_cost(algo, s, 4, loopback, 1 << 20, 2) - alone,
                bcast_busiest_core(algo, s, 4, 2) * loopback.beta, 1e-12);
  }
}

TEST(BcastChoice, FourRanksOnTwoCoresChainAboveOneSegment) {
  const ChoiceTable shared(4, loopback, 512 << 10, 2);
  // One piece: the tree's two steps beat the chain's three.
  EXPECT_EQ(shared.bcast(256 << 10), BcastAlgo::binomial) << shared.describe("test");
  EXPECT_EQ(shared.bcast(512 << 10), BcastAlgo::binomial) << shared.describe("test");
  // Two pieces and more: the chain spreads the copies evenly over the cores.
  EXPECT_EQ(shared.bcast(768 << 10), BcastAlgo::chain) << shared.describe("test");
  EXPECT_EQ(shared.bcast(4 << 20), BcastAlgo::chain) << shared.describe("test");
}

TEST(BcastChoice, RanksSharingCoresNeverScatterAllgather) {
  const ChoiceTable independent(4, loopback, 512 << 10);
  const ChoiceTable shared(4, loopback, 512 << 10, 2);
  // The plain model picks scatter_allgather for mid sizes; sharing two cores it never does.
  EXPECT_EQ(independent.bcast(1 << 20), BcastAlgo::scatter_allgather) << independent.describe("test");
  for (int size : {3, 4, 8, 16}) {
    const ChoiceTable table(size, loopback, 512 << 10, 2);
    for (const auto& range : table.bcast_ranges())
      EXPECT_NE(range.algo, BcastAlgo::scatter_allgather) << size << " ranks";
  }
  EXPECT_NE(shared.describe("test").find("all ranks share 2 cores"), std::string::npos);
  // A core per rank: the plain choice stands.
  for (std::size_t bytes : {std::size_t{1} << 10, std::size_t{1} << 20, std::size_t{1} << 26})
    EXPECT_EQ(ChoiceTable(64, loopback, 512 << 10, 256).bcast(bytes), ChoiceTable(64, loopback, 512 << 10).bcast(bytes));
}

TEST(BcastChoice, TableWithSharedCoresAgreesWithTheArgmin) {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> exponent(0, ChoiceTable::max_exponent);
  std::size_t checked = 0;
  for (int size : {2, 3, 4, 5, 8, 16})
    for (int cores : {1, 2, 8})
      for (std::size_t segment : {std::size_t{64} << 10, std::size_t{512} << 10}) {
        const ChoiceTable table(size, loopback, segment, cores);
        std::vector<std::size_t> sizes;
        for (int i = 0; i < 300; ++i) sizes.push_back(static_cast<std::size_t>(std::exp2(exponent(random))));
        for (const auto& range : table.bcast_ranges())
          for (std::size_t d : {0, 1})
            if (range.from >= d) sizes.push_back(range.from - d), sizes.push_back(range.from + d);
        for (std::size_t bytes : sizes) {
          ASSERT_EQ(table.bcast(bytes), cheapest_bcast(bytes, size, loopback, segment, cores))
              << bytes << " B on " << size << " ranks, " << cores << " cores\n" << table.describe("test");
          ++checked;
        }
      }
  EXPECT_GT(checked, 10000u);
}

}  // namespace
}  // namespace rcoll::collectives
