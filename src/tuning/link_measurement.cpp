#include "tuning/link_measurement.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <vector>

#include "collectives/reduce.hpp"
#include "rcoll/errors.hpp"
#include "transport/wait.hpp"

namespace rcoll::tuning {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The smallest value a measured field may take: a clock tick rounded to
// zero must not make a cost free (or a rate infinite).
constexpr double floor_seconds = 1e-15;

class PingPong {
 public:
  PingPong(transport::Transport& transport, transport::Tag tag, Deadline deadline)
      : transport_(transport), tag_(tag), deadline_(deadline), peer_(1 - transport.rank()) {}

  // Rank 0: one round trip of `bytes`; returns half of its duration in seconds.
  double ping(std::vector<std::byte>& buf, std::size_t bytes) {
    const auto start = Clock::now();
    std::array<transport::RequestPtr, 2> requests{transport_.irecv(peer_, tag_, buf.data(), bytes),
                                                  transport_.isend(peer_, tag_, buf.data(), bytes)};
    transport::wait_all(transport_, requests, deadline_, "calibration ping-pong");
    return seconds_since(start) / 2;
  }

  // Rank 1: receives one message of `bytes` and sends it back.
  void echo(std::vector<std::byte>& buf, std::size_t bytes) {
    transport::wait(transport_, transport_.irecv(peer_, tag_, buf.data(), bytes), deadline_, "calibration echo");
    transport::wait(transport_, transport_.isend(peer_, tag_, buf.data(), bytes), deadline_, "calibration echo");
  }

  // Median half round trip over `rounds` after `warmups` (rank 0), or echoes them all (rank 1).
  double series(std::size_t bytes, int warmups, int rounds) {
    std::vector<std::byte> buf(bytes);
    std::vector<double> halves;
    for (int i = 0; i < warmups + rounds; ++i) {
      if (transport_.rank() == 1) {
        echo(buf, bytes);
        continue;
      }
      const double half = ping(buf, bytes);
      if (i >= warmups) halves.push_back(half);
    }
    return halves.empty() ? 0 : median(std::move(halves));
  }

 private:
  transport::Transport& transport_;
  transport::Tag tag_;
  Deadline deadline_;
  int peer_;
};

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

std::optional<LinkCost> measure_link_pair(transport::Transport& transport, transport::Tag tag, Deadline deadline,
                                          const MeasurementPlan& plan) {
  if (transport.size() < 2 || transport.rank() > 1)
    throw InvalidArgument("calibration runs on ranks 0 and 1 only (rank " + std::to_string(transport.rank()) +
                          " of " + std::to_string(transport.size()) + ")");
  PingPong pair(transport, tag, deadline);
  const double small = pair.series(plan.small_bytes, plan.small_warmups, plan.small_rounds);
  const double large = pair.series(plan.large_bytes, plan.large_warmups, plan.large_rounds);
  if (transport.rank() == 1) return std::nullopt;
  LinkCost link;
  link.alpha = std::max(small, floor_seconds);
  // The small message's own bytes are negligible; what the large one takes
  // beyond a small one is its bytes' time. Clamped: a noisy large round may
  // come out faster than the small median.
  const double extra = std::max(large - small, large / 2);
  link.beta = std::max(extra / static_cast<double>(plan.large_bytes), floor_seconds);
  link.gamma = std::max(measure_reduce_gamma(plan.reduce_bytes, plan.reduce_rounds), floor_seconds);
  return link;
}

double measure_reduce_gamma(std::size_t bytes, int rounds) {
  const std::size_t count = std::max<std::size_t>(bytes / sizeof(float), 1);
  std::vector<float> inout(count, 1.0f), in(count, 0.5f);
  std::vector<double> per_byte;
  rounds = std::max(rounds, 1);
  for (int i = 0; i <= rounds; ++i) {  // round 0 warms up (page faults, caches)
    const auto start = Clock::now();
    collectives::reduce_into(inout.data(), in.data(), count, DataType::float32, ReduceOp::sum);
    const double elapsed = seconds_since(start);
    if (i > 0) per_byte.push_back(elapsed / static_cast<double>(count * sizeof(float)));
  }
  return median(std::move(per_byte));
}

}  // namespace rcoll::tuning
