// Options and output shared by the two physical-limit probes (tcp_stream,
// memcpy_bw): per size, `reps` repetitions each moving at least
// `min_total` bytes; the median GB/s (1e9 bytes/s) over repetitions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rcoll::peers {

struct LimitOptions {
  std::vector<std::size_t> sizes{std::size_t{1} << 20, std::size_t{16} << 20, std::size_t{64} << 20};
  int reps = 5;
  std::size_t min_total = std::size_t{256} << 20;
  std::string json_path;
};

struct LimitResult {
  std::size_t bytes = 0;
  std::vector<double> gbps;  // one per repetition
};

// Parses --sizes LIST, --reps N, --min-total BYTES, --json FILE; prints the
// usage and exits 2 on a bad command line (0 for --help).
LimitOptions parse_limit_options(int argc, char** argv, const char* program, const char* what);

// Number of transfers of `bytes` that move at least min_total bytes.
std::size_t transfers_for(const LimitOptions& options, std::size_t bytes);

// Prints one line per size and writes --json: {"meta": {...}, "results":
// [{"bytes", "GBps" (median), "reps_GBps"}]}.
void report_limits(const char* tool, const LimitOptions& options, const std::vector<LimitResult>& results);

}  // namespace rcoll::peers
