// Latency statistics over the timed iterations of one message size.
#pragma once

#include <vector>

namespace rcoll::bench {

struct LatencyStats {
  double min_s = 0;
  double median_s = 0;
  double p99_s = 0;  // nearest-rank 99th percentile
  double mean_s = 0;
};

// `samples` must be non-empty.
LatencyStats summarize(std::vector<double> samples);

// Bytes per nanosecond, i.e. GB/s with 1 GB = 1e9 bytes; 0 for a zero time.
double gigabytes_per_second(double bytes, double seconds) noexcept;

}  // namespace rcoll::bench
