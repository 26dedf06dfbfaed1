#include "common/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rcoll::bench {

LatencyStats summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  LatencyStats stats;
  stats.min_s = samples.front();
  stats.median_s = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  const auto rank = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(n)));
  stats.p99_s = samples[std::max<std::size_t>(rank, 1) - 1];
  stats.mean_s = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  return stats;
}

double gigabytes_per_second(double bytes, double seconds) noexcept {
  return seconds > 0 ? bytes / seconds / 1e9 : 0.0;
}

}  // namespace rcoll::bench
