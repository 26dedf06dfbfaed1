// Output of rcoll-bench (rank 0 only): an nccl-tests style table on stdout
// and, with --json, a JSON document.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "options.hpp"
#include "runner.hpp"

namespace rcoll::bench {

// Facts about the run that every line or the JSON meta block names.
struct RunInfo {
  BenchOptions options;
  int ranks = 0;
  std::string transport;
  std::string algo;  // the forced algorithm, or "auto"
  std::string host;
};

// The communicator's plan (Comm::describe_plan), each line behind "# ".
void print_plan(std::FILE* out, const std::string& plan);
void print_header(std::FILE* out, const RunInfo& info);
void print_row(std::FILE* out, const RunInfo& info, const SizeResult& result);
// "# avg busbw: X GB/s" and "# errors: N".
void print_footer(std::FILE* out, const std::vector<SizeResult>& results);

// {"meta": {...}, "results": [{...}, ...]}. Throws std::runtime_error
// naming the file when it cannot be written.
void write_json(const std::string& path, const RunInfo& info, const std::vector<SizeResult>& results);

}  // namespace rcoll::bench
