#include "options.hpp"

#include "common/sizes.hpp"

namespace rcoll::bench {
namespace {

constexpr const char* kUsage =
    "usage: rcoll-p2p --test lat|bw [options]   (exactly 2 ranks)\n"
    "  --test lat          ping-pong: half round trip per iteration (t_min, median, p99, avg)\n"
    "  --test bw           rank 0 sends --window messages back to back, rank 1 acks;\n"
    "                      bandwidth per repetition (median and max)\n"
    "  --min-bytes N       smallest message (default 8)\n"
    "  --max-bytes N       largest message (default 4M)\n"
    "  --step-factor F     size multiplier between steps, > 1 (default 2)\n"
    "  --sizes LIST        explicit sizes instead of the sweep, e.g. 8,1000,1M\n"
    "  --iters N           lat: round trips (default 1000); bw: repetitions (default 20)\n"
    "  --warmup N          untimed iterations per size (default: lat 100, bw 2)\n"
    "  --window W          bw: messages per repetition (default 64)\n"
    "  --check             verify the received bytes; exit 1 on any wrong byte\n"
    "  --json FILE         also write the results as JSON (rank 0)\n"
    "sizes take K, M, G suffixes (binary: 1K = 1024); MB/s is 1e6 bytes/s, Gb/s 1e9 bits/s.\n"
    "Run under the launcher: tools/rcoll-run -n 2 --transport rdma -- rcoll-p2p --test lat\n";

P2PTest parse_test(const std::string& text) {
  if (text == "lat") return P2PTest::lat;
  if (text == "bw") return P2PTest::bw;
  throw UsageError("unknown --test '" + text + "' (expected lat or bw)");
}

const OptionTable<P2POptions>& option_table() {
  using O = P2POptions;
  using V = const std::string&;
  static const OptionTable<P2POptions> table = {
      .valued = {
          {"--test", [](O& o, V v) { o.test = parse_test(v); }},
          {"--min-bytes", [](O& o, V v) { o.min_bytes = parse_bytes(v); }},
          {"--max-bytes", [](O& o, V v) { o.max_bytes = parse_bytes(v); }},
          {"--step-factor", [](O& o, V v) { o.step_factor = parse_step_factor(v); }},
          {"--sizes", [](O& o, V v) { o.sizes = parse_size_list(v); }},
          {"--iters", [](O& o, V v) { o.iters = parse_int("--iters", v, 1); }},
          {"--warmup", [](O& o, V v) { o.warmup = parse_int("--warmup", v, 0); }},
          {"--window", [](O& o, V v) { o.window = parse_int("--window", v, 1); }},
          {"--json", [](O& o, V v) { o.json_path = v; }},
      },
      .flags = {
          {"--check", [](O& o) { o.check = true; }},
          {"--help", [](O& o) { o.help = true; }},
          {"-h", [](O& o) { o.help = true; }},
      },
  };
  return table;
}

}  // namespace

std::string_view to_string(P2PTest test) noexcept { return test == P2PTest::lat ? "lat" : "bw"; }

P2POptions parse_p2p_options(const std::vector<std::string>& args) {
  P2POptions options;
  parse_command_line(options, args, option_table());
  if (options.help) return options;
  if (options.sizes.empty() && options.min_bytes > options.max_bytes)
    throw UsageError("--min-bytes is larger than --max-bytes");
  return options;
}

std::vector<std::size_t> p2p_sizes(const P2POptions& options) {
  if (!options.sizes.empty()) return options.sizes;
  return geometric_sizes(options.min_bytes, options.max_bytes, options.step_factor, 1);
}

const char* p2p_usage_text() noexcept { return kUsage; }

}  // namespace rcoll::bench
