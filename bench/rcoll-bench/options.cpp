#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>

namespace rcoll::bench {
namespace {

constexpr const char* kUsage =
    "usage: rcoll-bench --op allreduce|bcast|barrier [options]\n"
    "  --min-bytes N       smallest message (default 8)\n"
    "  --max-bytes N       largest message (default 64M)\n"
    "  --step-factor F     size multiplier between steps, > 1 (default 2)\n"
    "  --sizes LIST        explicit sizes instead of the sweep, e.g. 8,1000,3M\n"
    "  --iters N           timed iterations per size (default 20)\n"
    "  --warmup N          untimed iterations per size (default 5)\n"
    "  --dtype T           int8 uint8 int32 uint32 int64 uint64 float16 bfloat16\n"
    "                      float32 float64 (default float32)\n"
    "  --redop OP          sum|prod|min|max (allreduce; default sum)\n"
    "  --root R            bcast root (default 0)\n"
    "  --algo A            allreduce: auto|ring|tree|rd;\n"
    "                      bcast: auto|binomial|scatter_allgather|chain\n"
    "  --inplace           use one buffer for input and output\n"
    "  --check             verify results; exit 1 on any wrong element\n"
    "  --json FILE         also write the results as JSON (rank 0)\n"
    "sizes take K, M, G suffixes (binary: 1K = 1024).\n"
    "Run under the launcher: tools/rcoll-run -n 4 -- rcoll-bench --op allreduce --check\n";

int parse_int(const std::string& name, const std::string& text, int min_value) {
  int value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < min_value)
    throw UsageError(name + " needs an integer >= " + std::to_string(min_value) + ", got '" + text + "'");
  return value;
}

double parse_factor(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(value > 1.0))
    throw UsageError("--step-factor needs a number > 1, got '" + text + "'");
  return value;
}

DataType parse_dtype(const std::string& text) {
  for (int i = 0; i <= static_cast<int>(DataType::float64); ++i) {
    auto type = static_cast<DataType>(i);
    if (text == rcoll::to_string(type)) return type;
  }
  throw UsageError("unknown --dtype '" + text + "'");
}

ReduceOp parse_redop(const std::string& text) {
  for (auto op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max})
    if (text == rcoll::to_string(op)) return op;
  throw UsageError("unknown --redop '" + text + "' (expected sum, prod, min or max)");
}

BenchOp parse_op(const std::string& text) {
  for (auto op : {BenchOp::allreduce, BenchOp::bcast, BenchOp::barrier})
    if (text == to_string(op)) return op;
  throw UsageError("unknown --op '" + text + "' (expected allreduce, bcast or barrier)");
}

std::vector<std::size_t> parse_size_list(const std::string& text) {
  std::vector<std::size_t> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    sizes.push_back(parse_bytes(text.substr(start, comma - start)));
    start = comma + 1;
  }
  return sizes;
}

// The library's own parsers define the valid names; its InvalidArgument
// message lists them.
void validate_algo(BenchOp op, const std::string& algo) {
  try {
    if (op == BenchOp::allreduce) parse_allreduce_algo(algo);
    else if (op == BenchOp::bcast) parse_bcast_algo(algo);
    else throw UsageError("--algo does not apply to --op barrier");
  } catch (const InvalidArgument& e) {
    throw UsageError(std::string("--algo: ") + e.what());
  }
}

using Setter = std::function<void(BenchOptions&, const std::string&)>;

const std::map<std::string, Setter>& valued_options() {
  static const std::map<std::string, Setter> table = {
      {"--op", [](BenchOptions& o, const std::string& v) { o.op = parse_op(v); }},
      {"--min-bytes", [](BenchOptions& o, const std::string& v) { o.min_bytes = parse_bytes(v); }},
      {"--max-bytes", [](BenchOptions& o, const std::string& v) { o.max_bytes = parse_bytes(v); }},
      {"--step-factor", [](BenchOptions& o, const std::string& v) { o.step_factor = parse_factor(v); }},
      {"--sizes", [](BenchOptions& o, const std::string& v) { o.sizes = parse_size_list(v); }},
      {"--iters", [](BenchOptions& o, const std::string& v) { o.iters = parse_int("--iters", v, 1); }},
      {"--warmup", [](BenchOptions& o, const std::string& v) { o.warmup = parse_int("--warmup", v, 0); }},
      {"--dtype", [](BenchOptions& o, const std::string& v) { o.dtype = parse_dtype(v); }},
      {"--redop", [](BenchOptions& o, const std::string& v) { o.redop = parse_redop(v); }},
      {"--root", [](BenchOptions& o, const std::string& v) { o.root = parse_int("--root", v, 0); }},
      {"--algo", [](BenchOptions& o, const std::string& v) { o.algo = v; }},
      {"--json", [](BenchOptions& o, const std::string& v) { o.json_path = v; }},
  };
  return table;
}

// Accepts "--name value" and "--name=value".
void parse_one(BenchOptions& options, const std::vector<std::string>& args, std::size_t& i) {
  std::string name = args[i];
  std::optional<std::string> value;
  if (auto eq = name.find('='); eq != std::string::npos && name.starts_with("--")) {
    value = name.substr(eq + 1);
    name.resize(eq);
  }
  if (name == "--inplace" || name == "--check" || name == "--help" || name == "-h") {
    if (value) throw UsageError(name + " takes no value");
    if (name == "--inplace") options.inplace = true;
    else if (name == "--check") options.check = true;
    else options.help = true;
    return;
  }
  auto it = valued_options().find(name);
  if (it == valued_options().end()) throw UsageError("unknown option '" + args[i] + "'");
  if (!value) {
    if (i + 1 >= args.size()) throw UsageError(name + " needs a value");
    value = args[++i];
  }
  it->second(options, *value);
}

}  // namespace

std::string_view to_string(BenchOp op) noexcept {
  switch (op) {
    case BenchOp::allreduce: return "allreduce";
    case BenchOp::bcast: return "bcast";
    case BenchOp::barrier: return "barrier";
  }
  return "invalid-op";
}

std::size_t parse_bytes(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr == text.data()) throw UsageError("bad size '" + text + "'");
  unsigned shift = 0;
  if (ptr != end) {
    switch (std::toupper(static_cast<unsigned char>(*ptr))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: throw UsageError("bad size suffix in '" + text + "' (expected K, M or G)");
    }
    if (ptr + 1 != end) throw UsageError("bad size '" + text + "'");
  }
  if (value > (std::numeric_limits<std::size_t>::max() >> shift))
    throw UsageError("size '" + text + "' is too large");
  return static_cast<std::size_t>(value) << shift;
}

BenchOptions parse_options(const std::vector<std::string>& args) {
  BenchOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) parse_one(options, args, i);
  if (options.help) return options;
  if (!options.algo.empty()) validate_algo(options.op, options.algo);
  if (options.sizes.empty() && options.min_bytes > options.max_bytes)
    throw UsageError("--min-bytes is larger than --max-bytes");
  return options;
}

std::vector<std::size_t> sweep_sizes(const BenchOptions& options) {
  if (options.op == BenchOp::barrier) return {0};
  if (!options.sizes.empty()) return options.sizes;
  // Whole elements only, each size once (a factor close to 1 would
  // otherwise repeat the same element count).
  const std::size_t element = std::max<std::size_t>(dtype_size(options.dtype), 1);
  std::vector<std::size_t> sizes;
  std::size_t bytes = options.min_bytes;
  while (bytes <= options.max_bytes) {
    const std::size_t aligned = bytes < element ? bytes : bytes / element * element;
    if (sizes.empty() || sizes.back() != aligned) sizes.push_back(aligned);
    const double next = static_cast<double>(bytes) * options.step_factor;
    if (next > static_cast<double>(options.max_bytes)) break;
    // Factors close to 1 must still make progress.
    bytes = std::max(bytes + 1, static_cast<std::size_t>(next));
  }
  return sizes;
}

const char* usage_text() noexcept { return kUsage; }

}  // namespace rcoll::bench
