// The plan: its size ranges agree with the model's argmin at every size
// checked, its segment rule, the overrides, and its printed form.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "tuning/planner.hpp"

namespace rcoll::tuning {
namespace {

PlanInputs inputs(int size, const LinkCost& link, std::size_t segment, std::size_t eager = 0, int cores = 0) {
  PlanInputs in;
  in.model = {size, link, cores};
  in.preferred_segment = segment;
  in.eager_limit = eager;
  in.transport = "test";
  return in;
}

transport::Capabilities tcp_caps() { return {}; }

// Both fallbacks and a spread of measured-looking links (latency 0.5-100
// us, 0.1-50 GB/s, 1-50 GB/s reduce).
std::vector<LinkCost> sample_links() {
  transport::Capabilities rdma;
  rdma.remote_write = true;
  std::vector<LinkCost> links{fallback_link_cost(tcp_caps()), fallback_link_cost(rdma)};
  std::mt19937_64 random(42);
  auto log_uniform = [&](double lo, double hi) {
    return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(random));
  };
  for (int i = 0; i < 5; ++i)
    links.push_back({log_uniform(0.5e-6, 100e-6), 1 / log_uniform(0.1e9, 50e9), 1 / log_uniform(1e9, 50e9)});
  return links;
}

// Sizes to compare at: log-uniform random ones, each range boundary and
// each eager threshold with their neighbours.
template <typename Algorithm>
std::vector<std::size_t> check_sizes(const SizeTable<Algorithm>& table, const PlanInputs& in, std::mt19937_64& random) {
  std::vector<std::size_t> sizes{0, 1, 2, 3};
  std::uniform_real_distribution<double> exponent(0, max_exponent);
  for (int i = 0; i < 150; ++i) sizes.push_back(static_cast<std::size_t>(std::exp2(exponent(random))));
  std::vector<std::size_t> edges;
  for (const auto& range : table.ranges()) edges.push_back(range.from);
  const auto n = static_cast<std::size_t>(in.model.size);
  for (std::size_t e : {in.eager_limit, 2 * in.eager_limit, n * in.eager_limit, 2 * n * in.eager_limit})
    edges.push_back(e);
  for (std::size_t edge : edges)
    for (std::size_t d : {std::size_t{0}, std::size_t{1}, std::size_t{2}})
      if (edge >= d) sizes.push_back(edge - d), sizes.push_back(edge + d);
  return sizes;
}

TEST(Plan, RangesAgreeWithTheModelsArgminAtManySizes) {
  std::mt19937_64 random(7);
  std::size_t checked = 0;
  for (const LinkCost& link : sample_links())
    for (int size : {1, 2, 3, 4, 5, 8, 12, 31, 64})
      for (std::size_t eager : {std::size_t{0}, std::size_t{8} << 10, std::size_t{256} << 10})
        for (int cores : {0, 2}) {
          const PlanInputs in = inputs(size, link, std::size_t{512} << 10, eager, cores);
          const Plan plan = make_plan(in);
          for (std::size_t bytes : check_sizes(plan.allreduce_table(), in, random)) {
            ASSERT_TRUE(plan.allreduce(bytes) == choose(allreduce_collective(), in, bytes))
                << "allreduce " << bytes << " B\n" << plan.describe();
            ++checked;
          }
          for (std::size_t bytes : check_sizes(plan.bcast_table(), in, random)) {
            ASSERT_TRUE(plan.bcast(bytes) == choose(bcast_collective(), in, bytes)) << "bcast " << bytes << " B\n" << plan.describe();
            ++checked;
          }
        }
  EXPECT_GT(checked, 50000u);
}

TEST(Plan, LogDepthForSmallMessagesBandwidthOptimalForLarge) {
  for (int size : {2, 3, 8, 64}) {
    const Plan plan = make_plan(inputs(size, fallback_link_cost(tcp_caps()), 1 << 20));
    EXPECT_EQ(plan.allreduce(8).algorithm->id, AllreduceAlgo::recursive_doubling) << size;
    EXPECT_EQ(plan.allreduce(std::size_t{256} << 20).algorithm->id, AllreduceAlgo::ring) << size;
    EXPECT_EQ(plan.bcast(8).algorithm->id, BcastAlgo::binomial) << size;
  }
  EXPECT_NE(make_plan(inputs(8, fallback_link_cost(tcp_caps()), 1 << 20)).bcast(std::size_t{256} << 20).algorithm->id,
            BcastAlgo::binomial);
}

// Allgather, gather and scatter under the fallback TCP link: log-depth at
// 8 B, linear gather/scatter at 64 MiB (the binomial's staging copies
// outweigh its saved latencies). Allgather at 64 MiB is the ring where n is
// not a power of two (rd pays the unfold of almost the whole buffer again,
// Bruck its rotation); on a power of two the model keeps rd: it moves the
// same bytes as the ring in lg n steps instead of n - 1, and the model has
// no link contention, the usual reason to prefer the ring there. (On 3
// ranks lg n = n - 1: the ring and the linear gather win at every size.)
TEST(Plan, AllgatherGatherScatterLatencyAlgorithmsSmallBandwidthLarge) {
  constexpr std::size_t large = std::size_t{64} << 20;
  const Plan eight = make_plan(inputs(8, fallback_link_cost(tcp_caps()), 1 << 20));
  EXPECT_EQ(eight.tables().allgather.at(8).algorithm->id, AllgatherAlgo::recursive_doubling);
  EXPECT_EQ(eight.tables().allgather.at(large).algorithm->id, AllgatherAlgo::recursive_doubling);
  EXPECT_EQ(eight.tables().gather.at(8).algorithm->id, GatherAlgo::binomial);
  EXPECT_EQ(eight.tables().gather.at(large).algorithm->id, GatherAlgo::linear);
  EXPECT_EQ(eight.tables().scatter.at(8).algorithm->id, ScatterAlgo::binomial);
  EXPECT_EQ(eight.tables().scatter.at(large).algorithm->id, ScatterAlgo::linear);
  for (int size : {5, 6, 7, 12}) {
    const Plan plan = make_plan(inputs(size, fallback_link_cost(tcp_caps()), 1 << 20));
    EXPECT_EQ(plan.tables().allgather.at(8).algorithm->id, AllgatherAlgo::bruck) << size;
    EXPECT_EQ(plan.tables().allgather.at(large).algorithm->id, AllgatherAlgo::ring) << size;
    EXPECT_EQ(plan.tables().gather.at(8).algorithm->id, GatherAlgo::binomial) << size;
    EXPECT_EQ(plan.tables().gather.at(large).algorithm->id, GatherAlgo::linear) << size;
  }
  const Plan three = make_plan(inputs(3, fallback_link_cost(tcp_caps()), 1 << 20));
  EXPECT_EQ(three.tables().allgather.at(8).algorithm->id, AllgatherAlgo::ring);
  EXPECT_EQ(three.tables().gather.at(8).algorithm->id, GatherAlgo::linear);
}

// The same agreement for the allgather, gather and scatter tables (their
// costs are linear in the size between breakpoints, as the planner assumes).
TEST(Plan, AllgatherGatherScatterRangesAgreeWithTheModelsArgmin) {
  std::mt19937_64 random(11);
  for (const LinkCost& link : sample_links())
    for (int size : {1, 2, 3, 5, 8, 31, 64}) {
      const PlanInputs in = inputs(size, link, std::size_t{512} << 10, std::size_t{64} << 10);
      const Plan plan = make_plan(in);
      const PlanTables& t = plan.tables();
      for (std::size_t bytes : check_sizes(t.allgather, in, random))
        ASSERT_TRUE(t.allgather.at(bytes) == choose(allgather_collective(), in, bytes)) << "allgather " << bytes;
      for (std::size_t bytes : check_sizes(t.allgatherv, in, random))
        ASSERT_TRUE(t.allgatherv.at(bytes) == choose(allgatherv_collective(), in, bytes)) << "allgatherv " << bytes;
      for (std::size_t bytes : check_sizes(t.gather, in, random))
        ASSERT_TRUE(t.gather.at(bytes) == choose(gather_collective(), in, bytes)) << "gather " << bytes;
      for (std::size_t bytes : check_sizes(t.scatter, in, random))
        ASSERT_TRUE(t.scatter.at(bytes) == choose(scatter_collective(), in, bytes)) << "scatter " << bytes;
    }
}

// Once the ring wins at some size it keeps winning above it: no flip-flopping.
TEST(Plan, RingOnceChosenStaysChosenForLargerSizes) {
  for (int size = 2; size <= 64; ++size) {
    const Plan plan = make_plan(inputs(size, fallback_link_cost(tcp_caps()), 1 << 20, 64 << 10));
    bool ring = false;
    for (int e = 0; e <= max_exponent; ++e) {
      const bool now = plan.allreduce(std::size_t{1} << e).algorithm->id == AllreduceAlgo::ring;
      EXPECT_FALSE(ring && !now) << "size " << size << " bytes 2^" << e;
      ring = ring || now;
    }
    EXPECT_TRUE(ring) << size;
  }
}

TEST(SegmentRule, AMessageJustAboveTheEagerLimitGoesInTwoEagerHalves) {
  constexpr std::size_t E = 256 << 10, base = 512 << 10;
  const PlanInputs in = inputs(4, fallback_link_cost(tcp_caps()), base, E);
  for (AllreduceAlgo forced : {AllreduceAlgo::tree, AllreduceAlgo::ring}) {
    PlanInputs one = in;
    one.overrides.allreduce = forced;
    const Plan plan = make_plan(one);
    // The link message: the whole vector for the tree, a quarter for the ring.
    const std::size_t n = forced == AllreduceAlgo::ring ? 4 : 1;
    EXPECT_EQ(plan.allreduce(n * E).segment, base) << to_string(forced);
    EXPECT_EQ(plan.allreduce(n * E + 1).segment, E) << to_string(forced);
    EXPECT_EQ(plan.allreduce(2 * n * E).segment, E) << to_string(forced);
    EXPECT_EQ(plan.allreduce(2 * n * E + 1).segment, base) << to_string(forced);
  }
  // A base segment already eager is kept.
  EXPECT_EQ(make_plan(inputs(4, fallback_link_cost(tcp_caps()), E / 2, E)).bcast(E + 4).segment, E / 2);
  // No eager limit known: the base segment.
  EXPECT_EQ(make_plan(inputs(4, fallback_link_cost(tcp_caps()), base)).bcast(E + 4).segment, base);
}

TEST(SegmentRule, ATwoRankBcastTakesDoublePiecesUnlessThatCrossesTheEagerLimit) {
  constexpr std::size_t E = 256 << 10;
  const LinkCost link = fallback_link_cost(tcp_caps());
  EXPECT_EQ(make_plan(inputs(2, link, 512 << 10, E)).bcast(8 << 20).segment, 1u << 20);
  EXPECT_EQ(make_plan(inputs(2, link, 512 << 10, E)).bcast(E + 4).segment, E);  // halves, not doubled
  EXPECT_EQ(make_plan(inputs(2, link, 128 << 10, E)).bcast(4 * E).segment, E);  // doubled, still eager
  EXPECT_EQ(make_plan(inputs(2, link, 200 << 10, E)).bcast(4 * E).segment, 200u << 10);  // 400 KiB would not be
  EXPECT_EQ(make_plan(inputs(3, link, 512 << 10, E)).bcast(8 << 20).segment, 512u << 10);  // more than one edge
}

TEST(Overrides, AForcedAlgorithmAndSegmentHoldAtEverySize) {
  PlanInputs in = inputs(5, fallback_link_cost(tcp_caps()), 512 << 10, 64 << 10);
  in.overrides = {AllreduceAlgo::tree, BcastAlgo::chain, 32 << 10};
  const Plan plan = make_plan(in);
  for (const auto& range : plan.allreduce_table().ranges()) {
    EXPECT_EQ(range.choice.algorithm->id, AllreduceAlgo::tree);
    EXPECT_EQ(range.choice.segment, 32u << 10);
  }
  for (const auto& range : plan.bcast_table().ranges()) EXPECT_EQ(range.choice.algorithm->id, BcastAlgo::chain);
  const std::string text = plan.describe();
  EXPECT_NE(text.find("allreduce forced to tree"), std::string::npos) << text;
  EXPECT_NE(text.find("segment 32 KiB (RCOLL_SEGMENT_BYTES)"), std::string::npos) << text;
}

TEST(Plan, EqualInputsGiveEqualPlans) {
  for (const LinkCost& link : sample_links()) {
    const PlanInputs in = inputs(6, link, 512 << 10, 64 << 10, 2);
    EXPECT_EQ(make_plan(in).describe(), make_plan(in).describe());
  }
}

TEST(Plan, DescribesItsInputsAndRanges) {
  PlanInputs in = inputs(8, LinkCost{20e-6, 1 / 4e9, 1 / 8e9}, 1 << 20, 64 << 10);
  in.link_source = "measured";
  const Plan plan = make_plan(in);
  const std::string text = plan.describe();
  std::cout << text << "\n";
  for (const char* word : {"plan on 8 ranks over test", "link measured", "alpha 20 us", "beta 4 GB/s",
                           "gamma 8 GB/s reduce", "eager limit 64 KiB", "allreduce:", "bcast:", "-> rd, whole messages",
                           "-> ring", "-> binomial", "segment 1 MiB, depth 8", "and up"})
    EXPECT_NE(text.find(word), std::string::npos) << word << " missing in:\n" << text;
  EXPECT_LE(plan.allreduce_table().ranges().size(), 8u);
}

// The MPI-style set on 8 ranks with the TCP fallback link: the log-step
// algorithms for 8 B, the bandwidth-bound ones for 64 MiB (reduce: the
// tree moves the vector lg times into the root, reduce_scatter_gather
// about twice; reduce_scatter: the ring overlaps its reductions with the
// transfers, halving does not; alltoall: bruck moves lg S/2 and copies).
TEST(Plan, MpiStyleSetLogStepsForSmallBandwidthForLargeOnEightRanks) {
  const Plan plan = make_plan(inputs(8, fallback_link_cost(tcp_caps()), 1 << 20));
  const std::size_t large = std::size_t{64} << 20;
  const PlanTables& t = plan.tables();
  EXPECT_EQ(t.reduce.at(8).algorithm->id, ReduceAlgo::binomial);
  EXPECT_EQ(t.reduce.at(large).algorithm->id, ReduceAlgo::reduce_scatter_gather);
  EXPECT_EQ(t.reduce_scatter.at(8).algorithm->id, ReduceScatterAlgo::recursive_halving);
  EXPECT_EQ(t.reduce_scatter.at(large).algorithm->id, ReduceScatterAlgo::ring);
  EXPECT_EQ(t.reduce_scatter_v.at(8).algorithm->id, ReduceScatterAlgo::ring);
  EXPECT_EQ(t.alltoall.at(8).algorithm->id, AlltoallAlgo::bruck);
  EXPECT_EQ(t.alltoall.at(large).algorithm->id, AlltoallAlgo::pairwise);
  EXPECT_EQ(t.alltoallv.at(8).algorithm->id, AlltoallAlgo::pairwise);
}

// The plan's ranges for reduce, reduce_scatter(_v) and alltoall(v) agree
// with the model's argmin (the ring reduce-scatter's cost bends where a
// chunk reaches a segment, n segments: a breakpoint the planner has).
TEST(Plan, ReduceReduceScatterAlltoallRangesAgreeWithTheModelsArgmin) {
  std::mt19937_64 random(13);
  for (const LinkCost& link : sample_links())
    for (int size : {1, 2, 3, 5, 8, 31, 64}) {
      const PlanInputs in = inputs(size, link, std::size_t{512} << 10, std::size_t{64} << 10);
      const Plan plan = make_plan(in);
      const PlanTables& t = plan.tables();
      for (std::size_t bytes : check_sizes(t.reduce, in, random))
        ASSERT_TRUE(t.reduce.at(bytes) == choose(reduce_collective(), in, bytes)) << "reduce " << bytes;
      for (std::size_t bytes : check_sizes(t.reduce_scatter, in, random))
        ASSERT_TRUE(t.reduce_scatter.at(bytes) == choose(reduce_scatter_collective(), in, bytes))
            << "reduce_scatter " << bytes;
      for (std::size_t bytes : check_sizes(t.reduce_scatter_v, in, random))
        ASSERT_TRUE(t.reduce_scatter_v.at(bytes) == choose(reduce_scatter_v_collective(), in, bytes))
            << "reduce_scatter_v " << bytes;
      for (std::size_t bytes : check_sizes(t.alltoall, in, random))
        ASSERT_TRUE(t.alltoall.at(bytes) == choose(alltoall_collective(), in, bytes)) << "alltoall " << bytes;
      for (std::size_t bytes : check_sizes(t.alltoallv, in, random))
        ASSERT_TRUE(t.alltoallv.at(bytes) == choose(alltoallv_collective(), in, bytes)) << "alltoallv " << bytes;
    }
}

}  // namespace
}  // namespace rcoll::tuning
