#include "common/limit_report.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "common/args.hpp"
#include "common/json.hpp"

namespace rcoll::peers {
namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n == 0 ? 0.0 : n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

LimitOptions parse_limit_options(int argc, char** argv, const char* program, const char* what) {
  using O = LimitOptions;
  using V = const std::string&;
  bool help = false;
  const bench::OptionTable<LimitOptions> table = {
      .valued = {
          {"--sizes", [](O& o, V v) { o.sizes = bench::parse_size_list(v); }},
          {"--reps", [](O& o, V v) { o.reps = bench::parse_int("--reps", v, 1); }},
          {"--min-total", [](O& o, V v) { o.min_total = bench::parse_bytes(v); }},
          {"--round-trips", [](O& o, V v) { o.round_trips = bench::parse_int("--round-trips", v, 1); }},
          {"--json", [](O& o, V v) { o.json_path = v; }},
      },
      .flags = {{"--help", [&help](O&) { help = true; }}},
  };
  LimitOptions options;
  try {
    bench::parse_command_line(options, std::vector<std::string>(argv + 1, argv + argc), table);
    for (std::size_t s : options.sizes)
      if (s == 0) throw bench::UsageError("sizes must be > 0");
  } catch (const bench::UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    help = true;
    argc = -1;
  }
  if (help) {
    std::fprintf(argc < 0 ? stderr : stdout,
                 "usage: %s [--sizes 1M,16M,64M] [--reps 5] [--min-total 256M] [--round-trips 20000] [--json FILE]\n%s\n", program, what);
    std::exit(argc < 0 ? 2 : 0);
  }
  return options;
}

std::size_t transfers_for(const LimitOptions& options, std::size_t bytes) {
  return std::max<std::size_t>(1, (options.min_total + bytes - 1) / bytes);
}

void report_limits(const char* tool, const LimitOptions& options, const std::vector<LimitResult>& results,
                   LimitUnit unit) {
  const bool gbps = unit == LimitUnit::gbps;
  const char* key = gbps ? "GBps" : "us";
  std::printf("# %s: median over %d repetitions, %s\n#%12s %10s\n", tool, options.reps,
              gbps ? "GB/s = 1e9 bytes/s" : "one-way latency in microseconds", "bytes", key);
  for (const LimitResult& r : results) std::printf(" %12zu %10.3f\n", r.bytes, median(r.values));
  if (options.json_path.empty()) return;
  std::ofstream file(options.json_path);
  file << "{\n  \"meta\": {\"tool\": " << bench::json_string(tool) << ", \"reps\": " << options.reps
       << ", \"min_total\": " << options.min_total << ", \"round_trips\": " << options.round_trips << ", \"host\": " << bench::json_string(bench::host_name())
       << "},\n  \"results\": [";
  for (std::size_t i = 0; i < results.size(); ++i) {
    char head[128];
    std::snprintf(head, sizeof head, "{\"bytes\": %zu, \"%s\": %.4f, \"reps_%s\": [", results[i].bytes, key,
                  median(results[i].values), key);
    file << (i ? ",\n    " : "\n    ") << head;
    for (std::size_t j = 0; j < results[i].values.size(); ++j) {
      char value[32];
      std::snprintf(value, sizeof value, "%s%.4f", j ? ", " : "", results[i].values[j]);
      file << value;
    }
    file << "]}";
  }
  file << "\n  ]\n}\n";
  if (!file.flush()) {
    std::fprintf(stderr, "%s: cannot write '%s'\n", tool, options.json_path.c_str());
    std::exit(1);
  }
}

}  // namespace rcoll::peers
