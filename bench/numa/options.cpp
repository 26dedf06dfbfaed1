#include "options.hpp"

namespace rcoll::bench {
namespace {

constexpr const char* kUsage =
    "usage: rcoll-numa-bench [options]   (one process, no launcher)\n"
    "Copy and reduction-kernel bandwidth of buffers on each NUMA node, seen from\n"
    "CPUs bound to one node: local vs remote placement. On a machine with one\n"
    "NUMA node only the local figures are measured (the remote comparison is skipped).\n"
    "  --bytes N       size of each buffer (default 64M; a multiple of 4)\n"
    "  --reps N        timed repetitions per kernel and node (default 9; medians are reported)\n"
    "  --warmup N      untimed repetitions first (default 2)\n"
    "  --cpu-node N    bind to the CPUs of NUMA node N (default: the node of the first allowed CPU)\n"
    "  --json FILE     also write the results as JSON ('-' for stdout)\n"
    "copy GB/s: bytes copied (memcpy) per second; reduce GB/s: bytes of one operand per second of\n"
    "rcoll's float32 sum kernel (a[i] += b[i]: reads 2, writes 1). 1 GB = 1e9 bytes; sizes take\n"
    "K, M, G suffixes (binary).\n";

const OptionTable<NumaOptions>& option_table() {
  using O = NumaOptions;
  using V = const std::string&;
  static const OptionTable<NumaOptions> table = {
      .valued = {
          {"--bytes", [](O& o, V v) { o.bytes = parse_bytes(v); }},
          {"--reps", [](O& o, V v) { o.reps = parse_int("--reps", v, 1); }},
          {"--warmup", [](O& o, V v) { o.warmup = parse_int("--warmup", v, 0); }},
          {"--cpu-node", [](O& o, V v) { o.cpu_node = parse_int("--cpu-node", v, 0); }},
          {"--json", [](O& o, V v) { o.json_path = v; }},
      },
      .flags = {
          {"--help", [](O& o) { o.help = true; }},
          {"-h", [](O& o) { o.help = true; }},
      },
  };
  return table;
}

}  // namespace

NumaOptions parse_numa_options(const std::vector<std::string>& args) {
  NumaOptions options;
  parse_command_line(options, args, option_table());
  if (options.bytes == 0 || options.bytes % 4 != 0) throw UsageError("--bytes must be a positive multiple of 4");
  return options;
}

const char* numa_usage_text() noexcept { return kUsage; }

}  // namespace rcoll::bench
