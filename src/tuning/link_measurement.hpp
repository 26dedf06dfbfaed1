// Measuring the cost model's alpha, beta and gamma over the real transport.
//
// Ranks 0 and 1 ping-pong through the Transport interface (any backend):
//   alpha = median half round trip of an 8-byte message (21 rounds after 5 warm-ups);
//   beta  = (median half round trip of a 512 KiB message - alpha) / 512 KiB
//           (5 rounds after 1 warm-up);
// and rank 0 times the reduction kernel locally (no communication):
//   gamma = median seconds per byte of a float32 sum over 256 KiB (5 rounds after 1 warm-up).
// A few milliseconds over TCP. The pair 0-1 stands for every link: on a
// heterogeneous cluster (some pairs across a slower network) the model sees
// only the 0-1 link, so it under-prices the slower ones. The caller
// (calibration.hpp) shares the result so that every rank plans alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/deadline.hpp"
#include "transport/transport.hpp"
#include "tuning/link_cost.hpp"

namespace rcoll::tuning {

struct MeasurementPlan {
  std::size_t small_bytes = 8;
  int small_warmups = 5;
  int small_rounds = 21;
  std::size_t large_bytes = std::size_t{512} << 10;
  int large_warmups = 1;
  int large_rounds = 5;
  std::size_t reduce_bytes = std::size_t{256} << 10;
  int reduce_rounds = 5;
};

// Called by ranks 0 and 1 only, with the same tag (a tag no other message
// of the transport uses) and plan. Rank 0 returns the measurement (always
// plausible(): non-positive estimates are clamped to tiny positive ones);
// rank 1 echoes and returns nullopt. TimeoutError at `deadline`, IoError
// when the peer fails.
std::optional<LinkCost> measure_link_pair(transport::Transport& transport, transport::Tag tag, Deadline deadline,
                                          const MeasurementPlan& plan = {});

// The middle value (the upper one of an even count); 0 for none.
double median(std::vector<double> values);

// Seconds per byte of collectives::reduce_into (float32 sum), median of `rounds`.
double measure_reduce_gamma(std::size_t bytes, int rounds);

}  // namespace rcoll::tuning
