#include "common/peer_options.hpp"

#include <cstdio>

#include "common/args.hpp"
#include "common/sizes.hpp"

namespace rcoll::peers {
namespace {

using bench::UsageError;

constexpr PeerOp kOps[] = {PeerOp::allreduce, PeerOp::bcast, PeerOp::reduce, PeerOp::allgather,
                           PeerOp::reduce_scatter, PeerOp::alltoall, PeerOp::gather, PeerOp::scatter};

PeerOp parse_op(const std::string& text) {
  for (PeerOp op : kOps)
    if (text == to_string(op)) return op;
  throw UsageError("unknown --op '" + text +
                   "' (expected allreduce, bcast, reduce, allgather, reduce_scatter, alltoall, gather or scatter)");
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
          {"--poll-every", [](O& o, V v) { o.poll_every_us = bench::parse_int("--poll-every", v, 0); }},
      },
      .flags = {
          {"--inplace", [](O& o) { o.inplace = true; }},
          {"--check", [](O& o) { o.check = true; }},
          {"--overlap", [](O& o) { o.overlap = true; }},
          {"--help", [](O& o) { o.help = true; }},
          {"-h", [](O& o) { o.help = true; }},
      },
  };
  return table;
}

}  // namespace

const char* to_string(PeerOp op) noexcept {
  switch (op) {
    case PeerOp::allreduce: return "allreduce";
    case PeerOp::bcast: return "bcast";
    case PeerOp::reduce: return "reduce";
    case PeerOp::allgather: return "allgather";
    case PeerOp::reduce_scatter: return "reduce_scatter";
    case PeerOp::alltoall: return "alltoall";
    case PeerOp::gather: return "gather";
    case PeerOp::scatter: return "scatter";
  }
  return "invalid-op";
}

PeerOptions parse_peer_options(const std::vector<std::string>& args) {
  PeerOptions options;
  bench::parse_command_line(options, args, option_table());
  if (!options.help && options.sizes.empty() && options.min_bytes > options.max_bytes)
    throw UsageError("--min-bytes is larger than --max-bytes");
  if (options.inplace && options.op != PeerOp::allreduce && options.op != PeerOp::bcast)
    throw UsageError(std::string("--inplace is implemented for allreduce only, not --op ") + to_string(options.op));
  if (options.overlap && options.op != PeerOp::allreduce)
    throw UsageError("--overlap measures --op allreduce only");
  return options;
}

std::vector<std::size_t> peer_sweep(const PeerOptions& options) {
  if (!options.sizes.empty()) return options.sizes;
  return bench::geometric_sizes(options.min_bytes, options.max_bytes, options.step_factor, sizeof(float));
}

std::string peer_usage(const std::string& program) {
  return "usage: " + program + " --op OP [options]\n"
         "  --op OP             allreduce bcast reduce allgather reduce_scatter alltoall\n"
         "                      gather scatter (default allreduce)\n"
         "  --min-bytes N, --max-bytes N, --step-factor F, --sizes LIST\n"
         "                      the size sweep, as rcoll-bench (defaults 8, 64M, 2)\n"
         "  --iters N           timed iterations per size (default 20)\n"
         "  --warmup N          untimed iterations per size (default 5)\n"
         "  --dtype float32     --redop sum   (the only ones implemented)\n"
         "  --root R            root of bcast, reduce, gather, scatter (default 0)\n"
         "  --inplace           one buffer for input and output (allreduce only)\n"
         "  --check             verify results; exit 1 on any wrong element\n"
         "  --json FILE         also write the results as JSON (rank 0), rcoll-bench's shape\n"
         "  --overlap           allreduce: how much of the non-blocking form a computation of\n"
         "                      the same length hides, as rcoll-bench --overlap\n"
         "  --poll-every US     with --overlap: test the request every US microseconds (10)\n"
         "As in nccl-tests, a size is the vector of allreduce, bcast and reduce; a rank's\n"
         "receive buffer for allgather, the root's for gather; a rank's send buffer for\n"
         "reduce_scatter and alltoall, the root's for scatter; a rank's block is\n"
         "size / ranks in whole elements, and a size whose block is empty is skipped.\n";
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
