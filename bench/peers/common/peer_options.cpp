#include "common/peer_options.hpp"

#include <cstdio>

#include "common/args.hpp"
#include "common/sizes.hpp"

namespace rcoll::peers {
namespace {

using bench::UsageError;

PeerOp parse_op(const std::string& text) {
  if (text == "allreduce") return PeerOp::allreduce;
  if (text == "bcast") return PeerOp::bcast;
  throw UsageError("unknown --op '" + text + "' (expected allreduce or bcast)");
}

void require(const std::string& option, const std::string& value, const std::string& only) {
  if (value != only) throw UsageError(option + " '" + value + "' is not supported (only " + only + ")");
}

const bench::OptionTable<PeerOptions>& option_table() {
  using O = PeerOptions;
  using V = const std::string&;
  static const bench::OptionTable<PeerOptions> table = {
      .valued = {
          {"--op", [](O& o, V v) { o.op = parse_op(v); }},
          {"--min-bytes", [](O& o, V v) { o.min_bytes = bench::parse_bytes(v); }},
          {"--max-bytes", [](O& o, V v) { o.max_bytes = bench::parse_bytes(v); }},
          {"--step-factor", [](O& o, V v) { o.step_factor = bench::parse_step_factor(v); }},
          {"--sizes", [](O& o, V v) { o.sizes = bench::parse_size_list(v); }},
          {"--iters", [](O& o, V v) { o.iters = bench::parse_int("--iters", v, 1); }},
          {"--warmup", [](O& o, V v) { o.warmup = bench::parse_int("--warmup", v, 0); }},
          {"--dtype", [](O&, V v) { require("--dtype", v, "float32"); }},
          {"--redop", [](O&, V v) { require("--redop", v, "sum"); }},
          {"--root", [](O& o, V v) { o.root = bench::parse_int("--root", v, 0); }},
          {"--json", [](O& o, V v) { o.json_path = v; }},
      },
      .flags = {
          {"--inplace", [](O& o) { o.inplace = true; }},
          {"--check", [](O& o) { o.check = true; }},
          {"--help", [](O& o) { o.help = true; }},
          {"-h", [](O& o) { o.help = true; }},
      },
  };
  return table;
}

}  // namespace

const char* to_string(PeerOp op) noexcept { return op == PeerOp::bcast ? "bcast" : "allreduce"; }

PeerOptions parse_peer_options(const std::vector<std::string>& args) {
  PeerOptions options;
  bench::parse_command_line(options, args, option_table());
  if (!options.help && options.sizes.empty() && options.min_bytes > options.max_bytes)
    throw UsageError("--min-bytes is larger than --max-bytes");
  return options;
}

std::vector<std::size_t> peer_sweep(const PeerOptions& options) {
  if (!options.sizes.empty()) return options.sizes;
  return bench::geometric_sizes(options.min_bytes, options.max_bytes, options.step_factor, sizeof(float));
}

std::string peer_usage(const std::string& program) {
  return "usage: " + program + " --op allreduce|bcast [options]\n"
         "  --min-bytes N, --max-bytes N, --step-factor F, --sizes LIST\n"
         "                      the size sweep, as rcoll-bench (defaults 8, 64M, 2)\n"
         "  --iters N           timed iterations per size (default 20)\n"
         "  --warmup N          untimed iterations per size (default 5)\n"
         "  --dtype float32     --redop sum   (the only ones implemented)\n"
         "  --root R            bcast root (default 0)\n"
         "  --inplace           one buffer for input and output (allreduce)\n"
         "  --check             verify results; exit 1 on any wrong element\n"
         "  --json FILE         also write the results as JSON (rank 0), rcoll-bench's shape\n";
}

std::optional<int> read_command_line(const std::string& program, int argc, char** argv, PeerOptions& options) {
  try {
    options = parse_peer_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const rcoll::bench::UsageError& e) {
    std::fprintf(stderr, "%s: %s\n%s", program.c_str(), e.what(), peer_usage(program).c_str());
    return 2;
  }
  if (!options.help) return std::nullopt;
  std::fputs(peer_usage(program).c_str(), stdout);
  return 0;
}

}  // namespace rcoll::peers
