// The allreduce choice on shared cores: times measured on the ranks
// themselves (comm/allreduce_timing), how the choice table reads them
// (collectives/measured_allreduce, ChoiceTable), and the communicator
// that measures them where its ranks outnumber the cores.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/choose.hpp"
#include "collectives/measured_allreduce.hpp"
#include "comm/allreduce_timing.hpp"
#include "comm/comm_impl.hpp"
#include "comm/core_sharing.hpp"
#include "rcoll/comm.hpp"
#include "rcoll/errors.hpp"
#include "support/comm_ranks.hpp"
#include "support/run_ranks.hpp"
#include "support/transport_fixture.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;
using collectives::AllreduceTimes;
using collectives::ChoiceTable;
using collectives::LinkCost;

constexpr auto rd = AllreduceAlgo::recursive_doubling;
constexpr auto tree = AllreduceAlgo::tree;
constexpr auto ring = AllreduceAlgo::ring;
constexpr std::size_t kib = 1024;

// rd, tree, ring at 8 B, 64 KiB and 512 KiB, in microseconds.
using Row = std::array<double, AllreduceTimes::points>;
AllreduceTimes times_us(Row rd_us, Row tree_us, Row ring_us) {
  AllreduceTimes t;
  t.bytes = {8, 64 * kib, 512 * kib};
  t.seconds = {rd_us, tree_us, ring_us};
  for (auto& row : t.seconds)
    for (double& s : row) s *= 1e-6;
  return t;
}

// As 4 TCP ranks on 2 cores measure: the tree fastest at every size.
AllreduceTimes tree_wins() { return times_us({60, 200, 1000}, {40, 120, 850}, {70, 170, 900}); }

bool same_bits(const AllreduceTimes& a, const AllreduceTimes& b) {
  return a.bytes == b.bytes && std::memcmp(&a.seconds, &b.seconds, sizeof(a.seconds)) == 0;
}

// ------------------------------------------------------------ reading the times

TEST(MeasuredAllreduce, FlatBelowLinearBetweenNothingAbove) {
  const AllreduceTimes t = tree_wins();
  EXPECT_DOUBLE_EQ(*measured_seconds(t, tree, 0), 40e-6);
  EXPECT_DOUBLE_EQ(*measured_seconds(t, tree, 8), 40e-6);
  EXPECT_DOUBLE_EQ(*measured_seconds(t, tree, 64 * kib), 120e-6);
  EXPECT_DOUBLE_EQ(*measured_seconds(t, tree, 512 * kib), 850e-6);
  EXPECT_NEAR(*measured_seconds(t, rd, 8 + (64 * kib - 8) / 2), 130e-6, 1e-12);  // between the first two
  EXPECT_NEAR(*measured_seconds(t, rd, 288 * kib), 600e-6, 1e-12);               // between the last two
  EXPECT_FALSE(measured_seconds(t, ring, 512 * kib + 1).has_value());
  EXPECT_FALSE(measured_seconds(t, AllreduceAlgo::automatic, 8).has_value());
}

TEST(MeasuredAllreduce, PlausibleNeedsAscendingSizesAndPositiveFiniteTimes) {
  EXPECT_TRUE(plausible(tree_wins()));
  AllreduceTimes t = tree_wins();
  t.bytes = {8, 512 * kib, 64 * kib};
  EXPECT_FALSE(plausible(t));
  t.bytes = {8, 8, 64 * kib};
  EXPECT_FALSE(plausible(t));
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    t = tree_wins();
    t.seconds[2][1] = bad;
    EXPECT_FALSE(plausible(t)) << bad;
  }
}

// ------------------------------------------------------------ the table

const LinkCost link{5e-6, 1 / 6e9, 1 / 30e9};

TEST(MeasuredChoice, TheTimesDecideUpToTheLargestSizeAndTheModelAbove) {
  const ChoiceTable measured(4, link, 512 * kib, 2, tree_wins());
  const ChoiceTable model(4, link, 512 * kib, 2);
  for (std::size_t bytes : {std::size_t{0}, std::size_t{8}, 4 * kib, 100 * kib, 512 * kib})
    EXPECT_EQ(measured.allreduce(bytes), tree) << bytes;
  for (std::size_t bytes : {512 * kib + 1, 1024 * kib, 64 * 1024 * kib})
    EXPECT_EQ(measured.allreduce(bytes), model.allreduce(bytes)) << bytes;
  EXPECT_NE(model.allreduce(8), tree) << "the model alone would not pick the tree here";
  EXPECT_EQ(measured.bcast_ranges().size(), model.bcast_ranges().size()) << "bcast is not timed";
}

TEST(MeasuredChoice, SwitchesWhereTheLinesCross) {
  // Between 64 and 512 KiB: rd 100 -> 1000 us, tree 150 -> 600 us, equal at
  // 64 KiB + 448 KiB * 50 / 450 (the gap 50 us closes by 450 us); ring never the fastest.
  const AllreduceTimes t = times_us({20, 100, 1000}, {40, 150, 600}, {100, 300, 2000});
  const ChoiceTable table(4, link, 512 * kib, 2, t);
  const double cross = 64.0 * kib + 448.0 * kib * 50 / 450;
  const auto below = static_cast<std::size_t>(std::floor(cross)) - 1, above = static_cast<std::size_t>(std::ceil(cross)) + 1;
  EXPECT_EQ(table.allreduce(below), rd);
  EXPECT_EQ(table.allreduce(above), tree);
  const auto& ranges = table.allreduce_ranges();
  ASSERT_GE(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].algo, rd);
  EXPECT_EQ(ranges[1].algo, tree);
  EXPECT_NEAR(static_cast<double>(ranges[1].from), cross, 1.0);
  // And the table is cheapest_allreduce's argmin at every size around it.
  for (std::size_t bytes = below - 50; bytes < above + 50; ++bytes)
    ASSERT_EQ(table.allreduce(bytes), collectives::cheapest_allreduce(bytes, 4, link, &t)) << bytes;
}

TEST(MeasuredChoice, TheTableSaysWhatWasMeasured) {
  const ChoiceTable table(4, link, 512 * kib, 2, tree_wins());
  const std::string text = table.describe("measured");
  for (const char* words :
       {"allreduce up to 512 KiB by times measured on the shared cores",
        "rd 60 / 200 / 1e+03 us, tree 40 / 120 / 850 us, ring 70 / 170 / 900 us at 8 B / 64 KiB / 512 KiB", "-> tree"})
    EXPECT_NE(text.find(words), std::string::npos) << words << " missing in:\n" << text;
}

// ------------------------------------------------------------ timing on real transports

class AllreduceTiming : public test::OnBackend<std::string> {};

// A short plan: the same steps, fewer calls.
comm::AllreduceTimingPlan quick_plan() {
  comm::AllreduceTimingPlan plan;
  plan.bytes = {8, 4 * kib, 16 * kib};
  plan.rounds = 2;
  plan.timed = {2, 2, 2};
  return plan;
}

// Calls as where ranks share 2 cores: bcast trees alternating, 4 KiB segments.
collectives::Context shape(transport::Transport& t, Deadline deadline) {
  return collectives::Context{t, 0, deadline, 4 * kib, {}, collectives::TreeLayout::alternating, true};
}

TEST_P(AllreduceTiming, EveryRankGetsTheSameTimes) {
  constexpr int size = 3;
  test::TransportWorld world = test::make_transport_world(GetParam(), size);
  std::vector<AllreduceTimes> results(size);
  test::run_ranks(size, [&](int rank) {
    results[static_cast<std::size_t>(rank)] =
        comm::time_allreduce_algorithms(shape(world.at(rank), Deadline::after(60s)), quick_plan());
  });
  EXPECT_TRUE(plausible(results[0])) << describe(results[0]);
  EXPECT_EQ(results[0].bytes, quick_plan().bytes);
  for (int rank = 1; rank < size; ++rank)
    EXPECT_TRUE(same_bits(results[static_cast<std::size_t>(rank)], results[0]))
        << "rank " << rank << ": " << describe(results[static_cast<std::size_t>(rank)]) << " vs rank 0: "
        << describe(results[0]);
}

INSTANTIATE_TEST_SUITE_P(Backends, AllreduceTiming, ::testing::ValuesIn(test::transport_backends()),
                         [](const auto& info) { return info.param; });

TEST(AllreduceTimingErrors, AMissingRankTimesOutNamingTheTimingStep) {
  test::TransportWorld world = test::make_transport_world("inproc", 2);
  try {
    comm::time_allreduce_algorithms(shape(world.at(0), Deadline::after(200ms)), quick_plan());
    FAIL() << "no TimeoutError";
  } catch (const TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("start-up allreduce timing #0 (rd, 8 B)"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------ the communicator

TEST(AllreduceTimingBudget, ScalesWithTheRanksPerCoreAndKeepsSlowNetworksOut) {
  const comm::AllreduceTimingPlan plan;
  const double on_4 = plan.predicted_seconds(4, 4, link);
  EXPECT_GT(on_4, 0);
  EXPECT_DOUBLE_EQ(plan.predicted_seconds(4, 2, link), 2 * on_4);
  EXPECT_GT(plan.predicted_seconds(8, 2, link), plan.predicted_seconds(4, 2, link));
  // This host over TCP, and the Soft-RoCE guest (its calibration measured these).
  EXPECT_LT(plan.predicted_seconds(8, 2, LinkCost{6e-6, 1 / 5e9, 1 / 27e9}), comm::timing_budget_seconds);
  EXPECT_GT(plan.predicted_seconds(3, 2, LinkCost{48e-6, 1 / 0.018e9, 1 / 0.12e9}), comm::timing_budget_seconds);
}

// ------------------------------------------------------------ the communicator

struct CommTiming {
  std::optional<AllreduceTimes> measured;
  bool within_budget = false;  // what the communicator's own link figures predict
};

// Creates communicators on `size` ranks as threads (TCP, in-memory
// bootstrap), all of them on this host, and returns what each rank timed.
std::vector<CommTiming> timing_of_comms(int size, bool calibrate) {
  std::vector<CommTiming> seen(static_cast<std::size_t>(size));
  Options base;
  base.local_size = size;
  base.timeout = 30s;
  base.calibrate = calibrate;
  test::run_comm_ranks("tcp", size, base, [&](Comm& c) {
    const comm::CommImpl& comm = c.impl();
    CommTiming& mine = seen[static_cast<std::size_t>(comm.rank())];
    mine.measured = comm.choices().measured();
    mine.within_budget = comm::AllreduceTimingPlan{}.predicted_seconds(size, comm::CoreSharing::host_cpus(),
                                                                         comm.link_model().link) <=
                         comm::timing_budget_seconds;
    for (std::size_t bytes : {std::size_t{8}, 64 * kib, 256 * kib}) {
      if (mine.measured) {
        EXPECT_EQ(comm.allreduce_algo_for(bytes),
                  collectives::cheapest_allreduce(bytes, size, comm.link_model().link, &*mine.measured));
      }
    }
  });
  return seen;
}

// More ranks than this host's CPUs, so that they share cores (threads here).
int oversubscribed_size() { return comm::CoreSharing::host_cpus() + 1; }

TEST(SharedCoreComm, TimesItsAllreduceAlikeOnEveryRankWithinTheBudget) {
  const int size = oversubscribed_size();
  if (size > 9) GTEST_SKIP() << "needs more ranks than CPUs: " << size << " threads is too many for a unit test";
  const auto seen = timing_of_comms(size, true);
  // Over loopback TCP the budget holds; a sanitizer's slowdown may exceed
  // it, and then no rank may time.
  std::cout << size << " ranks: " << (seen[0].within_budget ? "within" : "over") << " the timing budget\n";
  EXPECT_EQ(seen[0].measured.has_value(), seen[0].within_budget);
  if (seen[0].measured) {
    EXPECT_TRUE(plausible(*seen[0].measured)) << describe(*seen[0].measured);
  }
  for (int rank = 1; rank < size; ++rank) {
    const CommTiming& other = seen[static_cast<std::size_t>(rank)];
    EXPECT_EQ(other.within_budget, seen[0].within_budget) << rank;
    ASSERT_EQ(other.measured.has_value(), seen[0].measured.has_value()) << rank;
    if (other.measured) {
      EXPECT_TRUE(same_bits(*other.measured, *seen[0].measured)) << rank;
    }
  }
}

TEST(SharedCoreComm, NoTimingWithoutCalibrationOrSharing) {
  if (oversubscribed_size() <= 9) {
    for (const CommTiming& c : timing_of_comms(oversubscribed_size(), false)) {
      EXPECT_FALSE(c.measured.has_value());
    }
  }
  for (const CommTiming& c : timing_of_comms(2, true))
    EXPECT_FALSE(c.measured.has_value()) << "2 ranks on this host's cores";
}

}  // namespace
}  // namespace rcoll
