#include "options.hpp"

#include "common/sizes.hpp"

namespace rcoll::bench {
namespace {

constexpr const char* kUsage =
    "usage: rcoll-bench --op OP [options]\n"
    "  --op OP             allreduce bcast barrier reduce allgather reduce_scatter\n"
    "                      alltoall gather scatter (default allreduce)\n"
    "  --min-bytes N       smallest message (default 8)\n"
    "  --max-bytes N       largest message (default 64M)\n"
    "  --step-factor F     size multiplier between steps, > 1 (default 2)\n"
    "  --sizes LIST        explicit sizes instead of the sweep, e.g. 8,1000,3M\n"
    "  --iters N           timed iterations per size (default 20)\n"
    "  --warmup N          untimed iterations per size (default 5)\n"
    "  --dtype T           int8 uint8 int32 uint32 int64 uint64 float16 bfloat16\n"
    "                      float32 float64 (default float32)\n"
    "  --redop OP          sum|prod|min|max, for allreduce, reduce, reduce_scatter\n"
    "                      (default sum)\n"
    "  --root R            root of bcast, reduce, gather, scatter (default 0)\n"
    "  --algo A            allreduce: auto|ring|tree|rd;\n"
    "                      bcast: auto|binomial|scatter_allgather|chain;\n"
    "                      reduce: auto|binomial|reduce_scatter_gather;\n"
    "                      allgather: auto|ring|rd|bruck;\n"
    "                      reduce_scatter: auto|ring|recursive_halving;\n"
    "                      alltoall: auto|pairwise|bruck;\n"
    "                      gather, scatter: auto|binomial|linear\n"
    "  --inplace           use one buffer for input and output (rcoll::in_place:\n"
    "                      reduce, gather and scatter at the root); not for alltoall\n"
    "  --check             verify results; exit 1 on any wrong element\n"
    "  --json FILE         also write the results as JSON (rank 0)\n"
    "  --print-plan        rank 0 prints the communicator's algorithm plan first\n"
    "  --overlap           allreduce only: how much of an iallreduce a computation\n"
    "                      of the same length hides (comm, compute, overlap, hidden)\n"
    "  --poll-every US     with --overlap: the computation calls test() every US\n"
    "                      microseconds; 0: only wait() at its end (default 10)\n"
    "sizes take K, M, G suffixes (binary: 1K = 1024). As in nccl-tests, a size is\n"
    "the vector of allreduce, bcast and reduce; a rank's receive buffer for\n"
    "allgather, the root's for gather; a rank's send buffer for reduce_scatter and\n"
    "alltoall, the root's for scatter; a rank's block is size / ranks, in whole\n"
    "elements.\n"
    "Run under the launcher: tools/rcoll-run -n 4 -- rcoll-bench --op allreduce --check\n";

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

constexpr BenchOp kOps[] = {BenchOp::allreduce, BenchOp::bcast,          BenchOp::barrier,
                            BenchOp::reduce,    BenchOp::allgather,      BenchOp::reduce_scatter,
                            BenchOp::alltoall,  BenchOp::gather,         BenchOp::scatter};

BenchOp parse_op(const std::string& text) {
  for (auto op : kOps)
    if (text == to_string(op)) return op;
  throw UsageError("unknown --op '" + text +
                   "' (expected allreduce, bcast, barrier, reduce, allgather, reduce_scatter, alltoall, gather "
                   "or scatter)");
}

// The library's own parsers define the valid names; its InvalidArgument
// message lists them.
void validate_algo(BenchOp op, const std::string& algo) {
  try {
    switch (op) {
      case BenchOp::allreduce: parse_allreduce_algo(algo); return;
      case BenchOp::bcast: parse_bcast_algo(algo); return;
      case BenchOp::reduce: parse_reduce_algo(algo); return;
      case BenchOp::allgather: parse_allgather_algo(algo); return;
      case BenchOp::reduce_scatter: parse_reduce_scatter_algo(algo); return;
      case BenchOp::alltoall: parse_alltoall_algo(algo); return;
      case BenchOp::gather: parse_gather_algo(algo); return;
      case BenchOp::scatter: parse_scatter_algo(algo); return;
      case BenchOp::barrier: break;
    }
    throw UsageError("--algo does not apply to --op barrier");
  } catch (const InvalidArgument& e) {
    throw UsageError(std::string("--algo: ") + e.what());
  }
}

const OptionTable<BenchOptions>& option_table() {
  using O = BenchOptions;
  using V = const std::string&;
  static const OptionTable<BenchOptions> table = {
      .valued = {
          {"--op", [](O& o, V v) { o.op = parse_op(v); }},
          {"--min-bytes", [](O& o, V v) { o.min_bytes = parse_bytes(v); }},
          {"--max-bytes", [](O& o, V v) { o.max_bytes = parse_bytes(v); }},
          {"--step-factor", [](O& o, V v) { o.step_factor = parse_step_factor(v); }},
          {"--sizes", [](O& o, V v) { o.sizes = parse_size_list(v); }},
          {"--iters", [](O& o, V v) { o.iters = parse_int("--iters", v, 1); }},
          {"--warmup", [](O& o, V v) { o.warmup = parse_int("--warmup", v, 0); }},
          {"--dtype", [](O& o, V v) { o.dtype = parse_dtype(v); }},
          {"--redop", [](O& o, V v) { o.redop = parse_redop(v); }},
          {"--root", [](O& o, V v) { o.root = parse_int("--root", v, 0); }},
          {"--algo", [](O& o, V v) { o.algo = v; }},
          {"--json", [](O& o, V v) { o.json_path = v; }},
          {"--poll-every", [](O& o, V v) { o.poll_every_us = parse_int("--poll-every", v, 0); }},
      },
      .flags = {
          {"--inplace", [](O& o) { o.inplace = true; }},
          {"--check", [](O& o) { o.check = true; }},
          {"--print-plan", [](O& o) { o.print_plan = true; }},
          {"--overlap", [](O& o) { o.overlap = true; }},
          {"--help", [](O& o) { o.help = true; }},
          {"-h", [](O& o) { o.help = true; }},
      },
  };
  return table;
}

}  // namespace

std::string_view to_string(BenchOp op) noexcept {
  switch (op) {
    case BenchOp::allreduce: return "allreduce";
    case BenchOp::bcast: return "bcast";
    case BenchOp::barrier: return "barrier";
    case BenchOp::reduce: return "reduce";
    case BenchOp::allgather: return "allgather";
    case BenchOp::reduce_scatter: return "reduce_scatter";
    case BenchOp::alltoall: return "alltoall";
    case BenchOp::gather: return "gather";
    case BenchOp::scatter: return "scatter";
  }
  return "invalid-op";
}

bool takes_root(BenchOp op) noexcept {
  return op == BenchOp::bcast || op == BenchOp::reduce || op == BenchOp::gather || op == BenchOp::scatter;
}

bool takes_redop(BenchOp op) noexcept {
  return op == BenchOp::allreduce || op == BenchOp::reduce || op == BenchOp::reduce_scatter;
}

bool has_in_place_form(BenchOp op) noexcept {
  return op != BenchOp::bcast && op != BenchOp::barrier && op != BenchOp::alltoall;
}

const char* algo_variable(BenchOp op) noexcept {
  switch (op) {
    case BenchOp::allreduce: return "RCOLL_ALLREDUCE_ALGO";
    case BenchOp::bcast: return "RCOLL_BCAST_ALGO";
    case BenchOp::reduce: return "RCOLL_REDUCE_ALGO";
    case BenchOp::allgather: return "RCOLL_ALLGATHER_ALGO";
    case BenchOp::reduce_scatter: return "RCOLL_REDUCE_SCATTER_ALGO";
    case BenchOp::alltoall: return "RCOLL_ALLTOALL_ALGO";
    case BenchOp::gather: return "RCOLL_GATHER_ALGO";
    case BenchOp::scatter: return "RCOLL_SCATTER_ALGO";
    case BenchOp::barrier: break;
  }
  return nullptr;
}

BenchOptions parse_options(const std::vector<std::string>& args) {
  BenchOptions options;
  parse_command_line(options, args, option_table());
  if (options.help) return options;
  if (!options.algo.empty()) validate_algo(options.op, options.algo);
  if (options.inplace && options.op == BenchOp::alltoall)
    throw UsageError("--inplace does not apply to --op alltoall (it has no in-place form)");
  if (options.overlap && options.op != BenchOp::allreduce)
    throw UsageError("--overlap measures --op allreduce only");
  if (options.sizes.empty() && options.min_bytes > options.max_bytes)
    throw UsageError("--min-bytes is larger than --max-bytes");
  return options;
}

std::vector<std::size_t> sweep_sizes(const BenchOptions& options) {
  if (options.op == BenchOp::barrier) return {0};
  if (!options.sizes.empty()) return options.sizes;
  // Whole elements only, each size once.
  return geometric_sizes(options.min_bytes, options.max_bytes, options.step_factor, dtype_size(options.dtype));
}

const char* usage_text() noexcept { return kUsage; }

}  // namespace rcoll::bench
