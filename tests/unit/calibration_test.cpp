// Calibration of the cost model and the choice table built from it: the
// measurement over real transports (ranks as threads), the sharing that
// makes every rank choose alike, the fallback, and the table's agreement
// with the model's argmin.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <vector>

#include "bootstrap/in_memory.hpp"
#include "collectives/calibration.hpp"
#include "collectives/choose.hpp"
#include "collectives/collectives.hpp"
#include "comm/comm_impl.hpp"
#include "comm/env_options.hpp"
#include "support/run_ranks.hpp"
#include "support/transport_fixture.hpp"
#include "transport/inproc/inproc_transport.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;
using collectives::ChoiceTable;
using collectives::LinkCost;

bool finite_positive(double v) { return std::isfinite(v) && v > 0; }

bool same_bits(const LinkCost& a, const LinkCost& b) { return std::memcmp(&a, &b, sizeof(LinkCost)) == 0; }

// ------------------------------------------------------------ measurement

class MeasurePair : public test::OnBackend<std::string> {};

TEST_P(MeasurePair, RankZeroGetsPositiveFiniteAlphaBetaGamma) {
  test::TransportWorld world = test::make_transport_world(GetParam(), 2);
  std::optional<LinkCost> results[2];
  test::run_ranks(2, [&](int rank) {
    results[rank] = collectives::measure_link_pair(world.at(rank), transport::Tag{1} << 62, Deadline::after(20s));
  });
  ASSERT_TRUE(results[0].has_value());
  EXPECT_FALSE(results[1].has_value());
  const LinkCost& link = *results[0];
  EXPECT_TRUE(finite_positive(link.alpha) && finite_positive(link.beta) && finite_positive(link.gamma));
  // Loose sanity bounds that still catch unit mistakes (ms for s, bits for bytes).
  EXPECT_LT(link.alpha, 0.05) << "alpha " << link.alpha << " s";
  EXPECT_LT(link.beta, 1e-6) << "beta " << link.beta << " s/B (below 1 MB/s)";
  EXPECT_LT(link.gamma, 1e-6) << "gamma " << link.gamma << " s/B";
  std::cout << GetParam() << ": alpha " << link.alpha * 1e6 << " us, " << 1e-9 / link.beta << " GB/s link, "
            << 1e-9 / link.gamma << " GB/s reduce\n";
}

INSTANTIATE_TEST_SUITE_P(Backends, MeasurePair, ::testing::Values("inproc", "tcp"),
                         [](const auto& info) { return info.param; });

TEST(Calibration, OnlyRanksZeroAndOneMeasure) {
  transport::InprocFabric fabric(3);
  auto third = fabric.endpoint(2);
  EXPECT_THROW(collectives::measure_link_pair(*third, 0, Deadline::after(1s)), InvalidArgument);
}

TEST(Calibration, AMissingPeerTimesOut) {
  transport::InprocFabric fabric(2);
  auto zero = fabric.endpoint(0);
  EXPECT_THROW(collectives::measure_link_pair(*zero, 0, Deadline::after(100ms)), TimeoutError);
}

TEST(Calibration, EncodingRoundTripsExactlyAndRejectsGarbage) {
  const LinkCost link{1.234567890123e-5, 1.0 / 6.7e9, 3.3e-11};
  auto decoded = collectives::decode_link_cost(collectives::encode_link_cost(link));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_TRUE(same_bits(*decoded, link));
  for (const char* bad : {"", "1p-3", "1p-3 1p-30", "1p-3 1p-30 1p-30 x", "0 1p-30 1p-30", "-1p-3 1p-30 1p-30",
                          "inf 1p-30 1p-30", "failed: boom"})
    EXPECT_FALSE(collectives::decode_link_cost(bad).has_value()) << "'" << bad << "'";
}

// ------------------------------------------------------------ the communicator

struct CommView {
  comm::LinkModel model;
  std::vector<AllreduceAlgo> allreduce;
  std::vector<BcastAlgo> bcast;
  double create_seconds = 0;
};

const std::vector<std::size_t>& probe_sizes() {
  static const std::vector<std::size_t> sizes = [] {
    std::vector<std::size_t> s;
    for (int e = 0; e <= 30; ++e)
      for (std::size_t m : {2, 3, 5, 7}) s.push_back((std::size_t{1} << e) * m / 4);
    return s;
  }();
  return sizes;
}

// Creates a communicator on `size` ranks as threads and records what each rank chose.
std::vector<CommView> create_comms(const std::string& backend, int size, bool calibrate) {
  auto rendezvous = std::make_shared<bootstrap::InMemoryRendezvous>(size);
  auto fabric = std::make_shared<transport::InprocFabric>(size);
  std::vector<CommView> views(static_cast<std::size_t>(size));
  test::run_ranks(size, [&](int rank) {
    Options options;
    options.rank = rank;
    options.size = size;
    options.bootstrap = "in-memory";
    options.transport = TransportKind::tcp;
    options.timeout = 20s;
    options.calibrate = calibrate;
    auto join = [&](const std::string& blob, Deadline deadline) { return rendezvous->join(rank, blob, deadline); };
    comm::TransportFactory make;
    if (backend == "inproc") make = [&](const transport::TransportConfig& c) { return fabric->endpoint(c.rank); };
    const auto start = std::chrono::steady_clock::now();
    comm::CommImpl comm(options, join, nullptr, make);
    CommView& view = views[static_cast<std::size_t>(rank)];
    view.create_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    view.model = comm.link_model();
    for (std::size_t bytes : probe_sizes()) {
      view.allreduce.push_back(comm.allreduce_algo_for(bytes));
      view.bcast.push_back(comm.bcast_algo_for(bytes));
    }
  });
  return views;
}

class CalibratedComm : public test::OnBackend<std::string> {};

TEST_P(CalibratedComm, EveryRankGetsTheSameMeasurementAndChoices) {
  constexpr int size = 4;
  const std::vector<CommView> views = create_comms(GetParam(), size, true);
  const LinkCost& link = views[0].model.link;
  EXPECT_TRUE(views[0].model.measured);
  EXPECT_TRUE(collectives::plausible(link));
  for (int rank = 1; rank < size; ++rank) {
    const CommView& view = views[static_cast<std::size_t>(rank)];
    EXPECT_TRUE(view.model.measured) << rank;
    EXPECT_TRUE(same_bits(view.model.link, link)) << "rank " << rank;
    EXPECT_EQ(view.allreduce, views[0].allreduce) << "rank " << rank;
    EXPECT_EQ(view.bcast, views[0].bcast) << "rank " << rank;
  }
}

// The start-up cost calibration adds: median creation time of a few
// communicators with and without it, measured side by side.
TEST_P(CalibratedComm, AddsOnlyMillisecondsToCreation) {
  std::vector<double> with, without;
  for (int i = 0; i < 3; ++i) {
    without.push_back(create_comms(GetParam(), 2, false)[0].create_seconds);
    with.push_back(create_comms(GetParam(), 2, true)[0].create_seconds);
  }
  std::sort(with.begin(), with.end());
  std::sort(without.begin(), without.end());
  std::cout << GetParam() << ": communicator creation median " << without[1] * 1e3 << " ms without calibration, "
            << with[1] * 1e3 << " ms with\n";
  EXPECT_LT(with[1] - without[1], 0.5) << "calibration should take milliseconds, not seconds";
}

INSTANTIATE_TEST_SUITE_P(Backends, CalibratedComm, ::testing::Values("inproc", "tcp"),
                         [](const auto& info) { return info.param; });

TEST(Calibration, OffUsesTheFallbackEstimates) {
  const std::vector<CommView> views = create_comms("tcp", 3, false);
  transport::Capabilities caps;  // what the fallback sees of TCP: only remote_write matters
  const LinkCost fallback = collectives::fallback_link_cost(caps);
  for (const CommView& view : views) {
    EXPECT_FALSE(view.model.measured);
    EXPECT_TRUE(same_bits(view.model.link, fallback));
  }
}

TEST(Calibration, EnvironmentSwitch) {
  auto read = [](const char* value) {
    if (value) setenv("RCOLL_CALIBRATE", value, 1);
    else unsetenv("RCOLL_CALIBRATE");
    Options o = comm::options_from_env();
    unsetenv("RCOLL_CALIBRATE");
    return o.calibrate;
  };
  EXPECT_TRUE(read(nullptr));
  EXPECT_TRUE(read("1"));
  EXPECT_FALSE(read("0"));
  EXPECT_THROW(read("yes"), InvalidArgument);
}

// ------------------------------------------------------------ the table

// Link models to check the table under: both fallbacks and a spread of
// measured-looking ones (latency 0.5-100 us, 0.1-50 GB/s, 1-50 GB/s reduce).
std::vector<LinkCost> sample_links() {
  transport::Capabilities tcp, rdma;
  rdma.remote_write = true;
  std::vector<LinkCost> links{collectives::fallback_link_cost(tcp), collectives::fallback_link_cost(rdma)};
  std::mt19937_64 random(42);
  auto log_uniform = [&](double lo, double hi) {
    return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(random));
  };
  for (int i = 0; i < 6; ++i)
    links.push_back({log_uniform(0.5e-6, 100e-6), 1 / log_uniform(0.1e9, 50e9), 1 / log_uniform(1e9, 50e9)});
  return links;
}

// Sizes to compare at: log-uniform random ones up to 2^max_exponent, and
// each range boundary with its neighbours.
template <typename Algo>
std::vector<std::size_t> check_sizes(const std::vector<collectives::SizeRange<Algo>>& ranges, std::mt19937_64& random) {
  std::vector<std::size_t> sizes{0, 1, 2, 3};
  std::uniform_real_distribution<double> exponent(0, ChoiceTable::max_exponent);
  for (int i = 0; i < 300; ++i) sizes.push_back(static_cast<std::size_t>(std::exp2(exponent(random))));
  for (const auto& range : ranges)
    for (std::size_t d : {std::size_t{0}, std::size_t{1}, std::size_t{2}})
      if (range.from >= d) sizes.push_back(range.from - d), sizes.push_back(range.from + d);
  return sizes;
}

TEST(ChoiceTable, AgreesWithTheModelsArgminAtManySizes) {
  std::mt19937_64 random(7);
  std::size_t checked = 0;
  for (const LinkCost& link : sample_links()) {
    for (int size : {1, 2, 3, 4, 5, 7, 8, 12, 16, 31, 64, 100}) {
      for (std::size_t segment : {std::size_t{64} << 10, std::size_t{1} << 20}) {
        const ChoiceTable table(size, link, segment);
        for (std::size_t bytes : check_sizes(table.allreduce_ranges(), random)) {
          ASSERT_EQ(table.allreduce(bytes), collectives::cheapest_allreduce(bytes, size, link))
              << "allreduce " << bytes << " B on " << size << " ranks\n" << table.describe("test");
          ++checked;
        }
        for (std::size_t bytes : check_sizes(table.bcast_ranges(), random)) {
          ASSERT_EQ(table.bcast(bytes), collectives::cheapest_bcast(bytes, size, link, segment))
              << "bcast " << bytes << " B on " << size << " ranks, segment " << segment << "\n"
              << table.describe("test");
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 50000u);
}

// The legacy entry points (fallback estimates) are the table of the fallback.
TEST(ChoiceTable, MatchesChooseWithTheFallback) {
  transport::Capabilities caps;
  caps.preferred_segment = 1 << 20;
  for (int size : {2, 3, 8, 64}) {
    const ChoiceTable table(size, collectives::fallback_link_cost(caps), collectives::modelled_segment(caps));
    for (int e = 0; e <= 34; ++e)
      for (std::size_t bytes : {(std::size_t{1} << e) - 1, std::size_t{1} << e, (std::size_t{3} << e) / 2}) {
        EXPECT_EQ(table.allreduce(bytes), collectives::choose_allreduce(bytes, size, caps)) << bytes;
        EXPECT_EQ(table.bcast(bytes), collectives::choose_bcast(bytes, size, caps)) << bytes;
      }
  }
}

TEST(ChoiceTable, DescribesTheLinkAndTheRanges) {
  const LinkCost link{20e-6, 1 / 4e9, 1 / 8e9};
  const ChoiceTable table(8, link, 1 << 20);
  const std::string text = table.describe("measured");
  std::cout << text << "\n";
  for (const char* word : {"measured", "alpha 20 us", "4 GB/s link", "8 GB/s reduce", "allreduce:", "bcast:", "-> rd",
                           "-> ring", "-> binomial", "and up"})
    EXPECT_NE(text.find(word), std::string::npos) << word << " missing in:\n" << text;
  EXPECT_LE(table.allreduce_ranges().size(), 6u);
}

}  // namespace
}  // namespace rcoll
