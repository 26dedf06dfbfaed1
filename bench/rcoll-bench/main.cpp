// rcoll-bench: nccl-tests style benchmark of rcoll collectives, built only
// on the public API. Run it under the launcher, e.g.
//   tools/rcoll-run -n 4 -- rcoll-bench --op allreduce --check --max-bytes 16M
// Rank 0 prints one line per message size; exit status 1 when --check found
// wrong elements or rcoll raised an error, 2 for a bad command line.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <rcoll/rcoll.hpp>

#include "common/json.hpp"
#include "layout.hpp"
#include "options.hpp"
#include "overlap_run.hpp"
#include "report.hpp"
#include "runner.hpp"

namespace rcoll::bench {
namespace {

// Comm::from_env() reads the algorithm from the environment, so --algo
// must be in place before the communicator is created. Returns the name
// shown in the "algo" column.
std::string force_algorithm(const BenchOptions& options) {
  const char* variable = algo_variable(options.op);
  if (variable == nullptr) return "-";  // barrier
  if (!options.algo.empty()) {
    ::setenv(variable, options.algo.c_str(), 1);
    return options.algo;
  }
  const char* inherited = std::getenv(variable);
  return inherited && *inherited ? inherited : "auto";
}

int run_benchmark(Comm& comm, const RunInfo& info) {
  const bool printer = comm.rank() == 0;
  const BenchOptions& options = info.options;
  if (takes_root(options.op) && options.root >= comm.size()) {
    if (printer) std::fprintf(stderr, "rcoll-bench: --root %d is not a rank (%d ranks)\n", options.root, comm.size());
    return 2;
  }
  const std::vector<std::size_t> sizes = sweep_sizes(options);
  Runner runner(comm, options, sizes);
  if (printer && options.print_plan) print_plan(stdout, comm.describe_plan());
  if (printer) print_header(stdout, info);
  std::vector<SizeResult> results;
  for (std::size_t bytes : sizes) {
    auto result = runner.run_size(bytes);
    if (!result) {
      if (printer) std::printf("# skipped %zu bytes: smaller than one %s element%s\n", bytes,
                               std::string(to_string(options.dtype)).c_str(),
                               splits_into_blocks(options.op) ? " per rank" : "");
      continue;
    }
    if (printer) print_row(stdout, info, *result);
    results.push_back(*result);
  }
  if (printer) print_footer(stdout, results);
  if (printer && !options.json_path.empty()) write_json(options.json_path, info, results);
  for (const SizeResult& r : results)
    if (r.errors != 0) return 1;
  return 0;
}

}  // namespace
}  // namespace rcoll::bench

int main(int argc, char** argv) {
  using namespace rcoll::bench;
  RunInfo info;
  try {
    info.options = parse_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rcoll-bench: %s\n%s", e.what(), usage_text());
    return 2;
  }
  if (info.options.help) {
    std::fputs(usage_text(), stdout);
    return 0;
  }
  info.algo = force_algorithm(info.options);
  info.host = host_name();
  try {
    rcoll::Comm comm = rcoll::Comm::from_env();
    info.ranks = comm.size();
    info.transport = comm.transport_name();
    return info.options.overlap ? run_overlap(comm, info) : run_benchmark(comm, info);
  } catch (const std::exception& e) {
    // rcoll errors already name the rank, peer and step.
    std::fprintf(stderr, "rcoll-bench: %s\n", e.what());
    return 1;
  }
}
