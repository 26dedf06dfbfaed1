// The cost model: the bcast costs on a host whose ranks share few cores
// (the link bytes each algorithm moves, the term they add, and the plan
// that follows), and the allreduce formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "collectives/schedule.hpp"
#include "tuning/catalog.hpp"
#include "tuning/planner.hpp"

namespace rcoll::tuning {
namespace {

using collectives::binomial_subtree_size;

template <typename Id>
double cost(Id algo, std::size_t bytes, int size, const LinkCost& link, std::size_t segment, int shared_cores = 0) {
  return find_algorithm(algo).cost(CostModel{size, link, shared_cores}, bytes, segment);
}
double bcast_cost(BcastAlgo algo, std::size_t bytes, int size, const LinkCost& link, std::size_t segment,
                  int shared_cores = 0) {
  return cost(algo, bytes, size, link, segment, shared_cores);
}

// A plan of bcast on `size` ranks sharing `cores` cores (0: a core each),
// with this base segment and no eager limit (so the segment rule keeps it).
Plan bcast_plan(int size, const LinkCost& link, std::size_t segment, int cores = 0) {
  PlanInputs in;
  in.model = {size, link, cores};
  in.preferred_segment = segment;
  return make_plan(in);
}

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
  const Plan shared = bcast_plan(4, loopback, 512 << 10, 2);
  auto at = [&](std::size_t bytes) { return shared.bcast(bytes).algorithm->id; };
  // One piece: the tree's two steps beat the chain's three.
  EXPECT_EQ(at(256 << 10), BcastAlgo::binomial) << shared.describe();
  EXPECT_EQ(at(512 << 10), BcastAlgo::binomial) << shared.describe();
  // Two pieces and more: the chain spreads the copies evenly over the cores.
  EXPECT_EQ(at(768 << 10), BcastAlgo::chain) << shared.describe();
  EXPECT_EQ(at(4 << 20), BcastAlgo::chain) << shared.describe();
}

TEST(BcastChoice, RanksSharingCoresNeverScatterAllgather) {
  const Plan independent = bcast_plan(4, loopback, 512 << 10);
  // The plain model picks scatter_allgather for mid sizes; sharing two cores it never does.
  EXPECT_EQ(independent.bcast(1 << 20).algorithm->id, BcastAlgo::scatter_allgather) << independent.describe();
  for (int size : {3, 4, 8, 16}) {
    const Plan plan = bcast_plan(size, loopback, 512 << 10, 2);
    for (const auto& range : plan.bcast_table().ranges())
      EXPECT_NE(range.choice.algorithm->id, BcastAlgo::scatter_allgather) << size << " ranks";
  }
  EXPECT_NE(bcast_plan(4, loopback, 512 << 10, 2).describe().find("all ranks share 2 cores"), std::string::npos);
}

TEST(AllreduceCost, FormulasOfTheModel) {
  const LinkCost l{10e-6, 1e-9, 2e-10};
  const double S = 1 << 20;
  // 4 ranks: the ring 6 a + 1.5 S b + 0.75 S g; rd 2 (a + S b + S g); the tree 4 (a + S b) + 2 S g.
  EXPECT_NEAR(cost(AllreduceAlgo::ring, 1 << 20, 4, l, 1), 6 * l.alpha + 1.5 * S * l.beta + 0.75 * S * l.gamma, 1e-15);
  EXPECT_NEAR(cost(AllreduceAlgo::recursive_doubling, 1 << 20, 4, l, 1), 2 * (l.alpha + S * l.beta + S * l.gamma),
              1e-15);
  EXPECT_NEAR(cost(AllreduceAlgo::tree, 1 << 20, 4, l, 1), 4 * (l.alpha + S * l.beta) + 2 * S * l.gamma, 1e-15);
  // 5 ranks: rd folds the fifth in and out, two steps more.
  EXPECT_NEAR(cost(AllreduceAlgo::recursive_doubling, 1 << 20, 5, l, 1),
              4 * (l.alpha + S * l.beta) + 3 * S * l.gamma, 1e-15);
}

}  // namespace
}  // namespace rcoll::tuning
