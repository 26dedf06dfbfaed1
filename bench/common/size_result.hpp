// One message size's result, as every benchmark of rcoll-bench's family
// reports it (rcoll-bench and the peer programs of bench/peers/), and its
// JSON object: one format, so that one parser (bench/compare) reads them all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/stats.hpp"

namespace rcoll::bench {

struct SizeResult {
  // The size the row stands for: count * element size, times the ranks
  // where rcoll-bench splits the buffer into one block per rank.
  std::size_t bytes = 0;
  std::size_t count = 0;  // the call's count argument, in elements
  // Per iteration the slowest rank's time; statistics over iterations.
  LatencyStats latency;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  // Wrong elements summed over ranks (0 without --check).
  std::uint64_t errors = 0;
};

// {"bytes", "count", "time_us" (median), "min_us", "p99_us", "mean_us",
//  "algbw_GBps", "busbw_GBps", "errors"}
std::string json_result(const SizeResult& r);

}  // namespace rcoll::bench
