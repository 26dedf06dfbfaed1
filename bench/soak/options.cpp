#include "options.hpp"

#include <cmath>
#include <cstdlib>

namespace rcoll::soak {
namespace {

using bench::UsageError;

constexpr const char* kUsage =
    "usage: rcoll-soak [options]     (under a launcher: tools/rcoll-run -n 8 -- rcoll-soak ...)\n"
    "  --duration S        run for S seconds (rank 0 decides; checked every 16 operations)\n"
    "  --ops N             run N operations (with --duration: whichever ends first;\n"
    "                      neither given: 1000)\n"
    "  --seed N            seed of the plan and of every input (default 1)\n"
    "  --max-bytes B       largest message (default 4M; K, M, G suffixes)\n"
    "  --comms K           communicators, each with its own forced algorithms and\n"
    "                      segment size (default 8)\n"
    "  --warmup-ops N      random operations after the largest-size warm-up, before\n"
    "                      the start RSS is taken (default 256)\n"
    "  --rss-growth-percent P, --rss-growth-mib M\n"
    "                      fail when VmRSS or VmHWM at the end exceeds its value half-way\n"
    "                      through by more than P % + M MiB (default 10 % + 8 MiB)\n"
    "  --threads N         N ranks as threads of this process (no launcher needed)\n"
    "  --transport T       auto|tcp|rdma for the pool (default: RCOLL_TRANSPORT, else auto)\n"
    "  --host H            address where rank 0 hosts the pool's bootstrap services\n"
    "                      (default: the host of RCOLL_BOOTSTRAP, else 127.0.0.1)\n"
    "  --timeout S         per-call timeout of the pool (default: RCOLL_TIMEOUT, else 120)\n"
    "  --progress S        rank 0 prints a progress line every S seconds (default 10; 0: off)\n"
    "  --json FILE         also write the results as JSON (rank 0)\n"
    "  --corrupt-every N   self-test: flip a byte of every Nth result before checking it\n"
    "                      (the run must then fail with mismatches)\n"
    "Exit status: 0 pass; 1 a mismatch or RSS growth; 2 bad command line; 3 an rcoll error.\n";

double parse_seconds(const std::string& name, const std::string& text, bool allow_zero) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(value) || value < 0 || (!allow_zero && value == 0))
    throw UsageError(name + " expects a " + (allow_zero ? "non-negative" : "positive") + " number, got '" + text + "'");
  return value;
}

std::uint64_t parse_u64(const std::string& name, const std::string& text) {
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || end == text.c_str() || *end != '\0')
    throw UsageError(name + " expects a non-negative integer, got '" + text + "'");
  return value;
}

const bench::OptionTable<SoakOptions>& option_table() {
  using O = SoakOptions;
  using V = const std::string&;
  static const bench::OptionTable<SoakOptions> table = {
      .valued = {
          {"--duration", [](O& o, V v) { o.duration_s = parse_seconds("--duration", v, false); }},
          {"--ops", [](O& o, V v) { o.ops = parse_u64("--ops", v); }},
          {"--seed", [](O& o, V v) { o.seed = parse_u64("--seed", v); }},
          {"--max-bytes", [](O& o, V v) { o.max_bytes = bench::parse_bytes(v); }},
          {"--comms", [](O& o, V v) { o.comms = bench::parse_int("--comms", v, 1); }},
          {"--warmup-ops", [](O& o, V v) { o.warmup_ops = bench::parse_int("--warmup-ops", v, 0); }},
          {"--rss-growth-percent", [](O& o, V v) { o.rss_growth_percent = parse_seconds("--rss-growth-percent", v, true); }},
          {"--rss-growth-mib", [](O& o, V v) { o.rss_growth_mib = parse_seconds("--rss-growth-mib", v, true); }},
          {"--threads", [](O& o, V v) { o.threads = bench::parse_int("--threads", v, 1); }},
          {"--transport", [](O& o, V v) { o.transport = v; }},
          {"--host", [](O& o, V v) { o.host = v; }},
          {"--timeout", [](O& o, V v) { o.timeout_s = parse_seconds("--timeout", v, false); }},
          {"--progress", [](O& o, V v) { o.progress_s = parse_seconds("--progress", v, true); }},
          {"--json", [](O& o, V v) { o.json_path = v; }},
          {"--corrupt-every", [](O& o, V v) { o.corrupt_every = parse_u64("--corrupt-every", v); }},
      },
      .flags = {
          {"--help", [](O& o) { o.help = true; }},
          {"-h", [](O& o) { o.help = true; }},
      },
  };
  return table;
}

}  // namespace

SoakOptions parse_options(const std::vector<std::string>& args) {
  SoakOptions options;
  bench::parse_command_line(options, args, option_table());
  if (options.ops == 0 && options.duration_s == 0) options.ops = 1000;
  if (options.max_bytes < 8) throw UsageError("--max-bytes must be at least 8");
  if (options.threads > 256) throw UsageError("--threads: at most 256 ranks");
  return options;
}

const char* usage_text() noexcept { return kUsage; }

}  // namespace rcoll::soak
