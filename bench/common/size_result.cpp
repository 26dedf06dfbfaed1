#include "common/size_result.hpp"

#include <cstdio>

namespace rcoll::bench {

std::string json_result(const SizeResult& r) {
  char line[512];
  std::snprintf(line, sizeof line,
                "{\"bytes\": %zu, \"count\": %zu, \"time_us\": %.3f, \"min_us\": %.3f, "
                "\"p99_us\": %.3f, \"mean_us\": %.3f, \"algbw_GBps\": %.4f, \"busbw_GBps\": %.4f, "
                "\"errors\": %llu}",
                r.bytes, r.count, r.latency.median_s * 1e6, r.latency.min_s * 1e6, r.latency.p99_s * 1e6,
                r.latency.mean_s * 1e6, r.algbw_gbps, r.busbw_gbps, static_cast<unsigned long long>(r.errors));
  return line;
}

}  // namespace rcoll::bench
