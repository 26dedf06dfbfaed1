// rcoll-numa-bench output: a table on stdout and, with --json, a JSON file.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "measure.hpp"
#include "options.hpp"

namespace rcoll::bench {

struct NumaRun {
  NumaOptions options;
  std::string host;
  int numa_nodes = 0;
  int cpu_node = -1;
  std::string cpus;          // the CPUs the measuring thread was bound to
  std::string bind_problem;  // why it is not bound there ("" when it is)
  std::vector<NodeResult> rows;  // the local node first
  bool remote_skipped = false;
};

void print_table(std::FILE* out, const NumaRun& run);
// Throws std::runtime_error when the file cannot be written.
void write_json(const std::string& path, const NumaRun& run);

}  // namespace rcoll::bench
