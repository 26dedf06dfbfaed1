// Options and output shared by the physical-limit probes: per size, `reps`
// repetitions, and the median over them. tcp_stream and memcpy_bw move at
// least `min_total` bytes per repetition and report GB/s (1e9 bytes/s);
// tcp_pingpong makes `round_trips` round trips and reports one-way µs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rcoll::peers {

struct LimitOptions {
  std::vector<std::size_t> sizes{std::size_t{1} << 20, std::size_t{16} << 20, std::size_t{64} << 20};
  int reps = 5;
  std::size_t min_total = std::size_t{256} << 20;
  int round_trips = 20000;
  std::string json_path;
};

struct LimitResult {
  std::size_t bytes = 0;
  std::vector<double> values;  // one per repetition, in the probe's LimitUnit
};

enum class LimitUnit { gbps, microseconds };

// Parses --sizes LIST, --reps N, --min-total BYTES, --round-trips N, --json
// FILE; prints the usage and exits 2 on a bad command line (0 for --help).
LimitOptions parse_limit_options(int argc, char** argv, const char* program, const char* what);

// Number of transfers of `bytes` that move at least min_total bytes.
std::size_t transfers_for(const LimitOptions& options, std::size_t bytes);

// Prints one line per size and writes --json: {"meta": {...}, "results":
// [{"bytes", U (median), "reps_U"}]} with U "GBps" or "us".
void report_limits(const char* tool, const LimitOptions& options, const std::vector<LimitResult>& results,
                   LimitUnit unit);

}  // namespace rcoll::peers
