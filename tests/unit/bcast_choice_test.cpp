// The bcast cost model on a host whose ranks share few cores: the link
// bytes each algorithm moves, the term they add, and the choice table's
// exactness with it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "collectives/choose.hpp"
#include "collectives/cost_model.hpp"

namespace rcoll::collectives {
namespace {

// Roughly what calibration measured for 4 TCP ranks on a 2-core host.
constexpr LinkCost loopback{37e-6, 1 / 1.55e9, 1 / 50e9};

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

TEST(BcastCost, SharedCoresAddTheCopiesOfEveryLinkByte) {
  const std::size_t s = 1 << 20;
  for (BcastAlgo algo : {BcastAlgo::binomial, BcastAlgo::scatter_allgather, BcastAlgo::chain}) {
    const double alone = bcast_cost(algo, s, 4, loopback, 1 << 20);
    EXPECT_DOUBLE_EQ(bcast_cost(algo, s, 4, loopback, 1 << 20, 0), alone);
    EXPECT_NEAR(bcast_cost(algo, s, 4, loopback, 1 << 20, 2) - alone,
                bcast_link_bytes(algo, s, 4) * loopback.beta, 1e-12);
  }
}

TEST(BcastChoice, FourRanksOnTwoCoresNeverScatterAllgather) {
  const ChoiceTable independent(4, loopback, 512 << 10);
  const ChoiceTable shared(4, loopback, 512 << 10, 2);
  // The plain model picks scatter_allgather for mid sizes; sharing two cores it never does.
  EXPECT_EQ(independent.bcast(1 << 20), BcastAlgo::scatter_allgather) << independent.describe("test");
  for (const auto& range : shared.bcast_ranges())
    EXPECT_NE(range.algo, BcastAlgo::scatter_allgather) << shared.describe("test");
  EXPECT_NE(shared.describe("test").find("all ranks share 2 cores"), std::string::npos);
  // Many cores: the term is small and the plain choice stands for large messages on many ranks.
  EXPECT_EQ(ChoiceTable(64, loopback, 512 << 10, 256).bcast(std::size_t{1} << 26),
            ChoiceTable(64, loopback, 512 << 10).bcast(std::size_t{1} << 26));
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
