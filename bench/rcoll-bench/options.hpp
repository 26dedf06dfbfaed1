// Command line of rcoll-bench. Parsing is pure (no communicator needed), so
// every rank parses the same argv to the same BenchOptions before joining.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <rcoll/rcoll.hpp>

#include "common/args.hpp"

namespace rcoll::bench {

enum class BenchOp { allreduce, bcast, barrier, reduce, allgather, reduce_scatter, alltoall, gather, scatter };

struct BenchOptions {
  BenchOp op = BenchOp::allreduce;
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t{64} << 20;
  double step_factor = 2.0;
  // When non-empty, replaces the min/max/step sweep.
  std::vector<std::size_t> sizes;
  int iters = 20;
  int warmup = 5;
  DataType dtype = DataType::float32;
  ReduceOp redop = ReduceOp::sum;
  int root = 0;  // bcast, reduce, gather, scatter
  // The --algo value as given (already validated for `op`); empty if absent.
  std::string algo;
  bool inplace = false;
  bool check = false;
  bool print_plan = false;  // rank 0 prints Comm::describe_plan() as '#' lines first
  std::string json_path;
  bool overlap = false;     // --overlap: the overlap measurement (common/overlap.hpp) instead of the sweep
  int poll_every_us = 10;   // with --overlap: test() interval in the computation; 0: never
  bool help = false;
};

std::string_view to_string(BenchOp op) noexcept;
// Whether --root, --redop and --inplace mean something for `op` (bcast is
// in place by nature; alltoall has no in-place form, so --inplace is a
// usage error there; elsewhere they are ignored, as before).
bool takes_root(BenchOp op) noexcept;
bool takes_redop(BenchOp op) noexcept;
bool has_in_place_form(BenchOp op) noexcept;
// The environment variable that forces `op`'s algorithm (RCOLL_<OP>_ALGO),
// read by Comm::from_env(); nullptr for barrier.
const char* algo_variable(BenchOp op) noexcept;

// Throws UsageError on an unknown option, a missing or malformed value, an
// --algo that does not exist for --op, or --inplace with --op alltoall.
BenchOptions parse_options(const std::vector<std::string>& args);

// The byte sizes to run, in order: --sizes as given, or the geometric
// sweep rounded down to whole elements without repeats; {0} for barrier.
std::vector<std::size_t> sweep_sizes(const BenchOptions& options);

const char* usage_text() noexcept;

}  // namespace rcoll::bench
