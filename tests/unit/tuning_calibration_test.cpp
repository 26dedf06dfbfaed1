// Calibration of the cost model: the measurement over real transports
// (ranks as threads), the sharing that makes every rank plan alike, and
// the fallback.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <vector>

#include "bootstrap/in_memory.hpp"
#include "comm/comm_impl.hpp"
#include "comm/environment.hpp"
#include "support/run_ranks.hpp"
#include "support/transport_fixture.hpp"
#include "transport/inproc/inproc_transport.hpp"
#include "tuning/link_measurement.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;
using tuning::LinkCost;

bool finite_positive(double v) { return std::isfinite(v) && v > 0; }

bool same_bits(const LinkCost& a, const LinkCost& b) { return std::memcmp(&a, &b, sizeof(LinkCost)) == 0; }

// ------------------------------------------------------------ measurement

class MeasurePair : public test::OnBackend<std::string> {};

TEST_P(MeasurePair, RankZeroGetsPositiveFiniteAlphaBetaGamma) {
  test::TransportWorld world = test::make_transport_world(GetParam(), 2);
  std::optional<LinkCost> results[2];
  test::run_ranks(2, [&](int rank) {
    results[rank] = tuning::measure_link_pair(world.at(rank), transport::Tag{1} << 62, Deadline::after(20s));
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
  EXPECT_THROW(tuning::measure_link_pair(*third, 0, Deadline::after(1s)), InvalidArgument);
}

TEST(Calibration, AMissingPeerTimesOut) {
  transport::InprocFabric fabric(2);
  auto zero = fabric.endpoint(0);
  EXPECT_THROW(tuning::measure_link_pair(*zero, 0, Deadline::after(100ms)), TimeoutError);
}

TEST(Calibration, EncodingRoundTripsExactlyAndRejectsGarbage) {
  const LinkCost link{1.234567890123e-5, 1.0 / 6.7e9, 3.3e-11};
  auto decoded = tuning::decode_link_cost(tuning::encode_link_cost(link));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_TRUE(same_bits(*decoded, link));
  for (const char* bad : {"", "1p-3", "1p-3 1p-30", "1p-3 1p-30 1p-30 x", "0 1p-30 1p-30", "-1p-3 1p-30 1p-30",
                          "inf 1p-30 1p-30", "failed: boom"})
    EXPECT_FALSE(tuning::decode_link_cost(bad).has_value()) << "'" << bad << "'";
}

// ------------------------------------------------------------ the communicator

struct CommView {
  tuning::LinkModel model;
  std::vector<tuning::AllreduceChoice> allreduce;
  std::vector<tuning::BcastChoice> bcast;
  std::string plan;
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
      view.allreduce.push_back(comm.plan().allreduce(bytes));
      view.bcast.push_back(comm.plan().bcast(bytes));
    }
    view.plan = comm.plan().describe();
  });
  return views;
}

class CalibratedComm : public test::OnBackend<std::string> {};

TEST_P(CalibratedComm, EveryRankGetsTheSameMeasurementAndPlan) {
  constexpr int size = 4;
  const std::vector<CommView> views = create_comms(GetParam(), size, true);
  const LinkCost& link = views[0].model.link;
  EXPECT_TRUE(views[0].model.measured);
  EXPECT_TRUE(tuning::plausible(link));
  for (int rank = 1; rank < size; ++rank) {
    const CommView& view = views[static_cast<std::size_t>(rank)];
    EXPECT_TRUE(view.model.measured) << rank;
    EXPECT_TRUE(same_bits(view.model.link, link)) << "rank " << rank;
    EXPECT_TRUE(view.allreduce == views[0].allreduce) << "rank " << rank;
    EXPECT_TRUE(view.bcast == views[0].bcast) << "rank " << rank;
    EXPECT_EQ(view.plan, views[0].plan) << "rank " << rank;
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
  const LinkCost fallback = tuning::fallback_link_cost(caps);
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

}  // namespace
}  // namespace rcoll
