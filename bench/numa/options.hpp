// Command line of rcoll-numa-bench. Parsing is pure.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/args.hpp"

namespace rcoll::bench {

struct NumaOptions {
  std::size_t bytes = std::size_t{64} << 20;  // per buffer; a multiple of 4 (float32 elements)
  int reps = 9;
  int warmup = 2;
  int cpu_node = -1;  // -1: the node of the first CPU this process may run on
  std::string json_path;  // "-": stdout
  bool help = false;
};

// Throws UsageError on an unknown option or a missing or malformed value.
NumaOptions parse_numa_options(const std::vector<std::string>& args);

const char* numa_usage_text() noexcept;

}  // namespace rcoll::bench
