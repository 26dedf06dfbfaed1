// Command line of rcoll-soak. Parsing is pure, so every rank parses the same
// argv to the same options (and so draws the same plan) before it joins.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/args.hpp"

namespace rcoll::soak {

struct SoakOptions {
  // 0: one rank per process (Comm::from_env, e.g. under rcoll-run); N > 0:
  // N ranks as threads of this process, over TCP on 127.0.0.1 (or --transport).
  int threads = 0;
  double duration_s = 0;         // 0: no time limit
  std::uint64_t ops = 0;         // 0: no count limit; neither given: 1000 ops
  std::uint64_t seed = 1;
  std::size_t max_bytes = std::size_t{4} << 20;
  int comms = 8;                 // communicators in the pool (one algorithm mix each)
  int warmup_ops = 256;           // random operations after the sized warm-up
  double rss_growth_percent = 10;
  double rss_growth_mib = 8;
  double progress_s = 10;        // rank 0 prints progress this often; 0: never
  double timeout_s = 0;          // per-call timeout of the pool; 0: RCOLL_TIMEOUT, else 120
  std::string transport;         // empty: RCOLL_TRANSPORT, else auto
  std::string host;              // where rank 0 hosts the pool's services
  std::string json_path;
  std::uint64_t corrupt_every = 0;  // self-test of the checker (see Checker)
  bool help = false;
};

// Throws bench::UsageError for a bad command line.
SoakOptions parse_options(const std::vector<std::string>& args);
const char* usage_text() noexcept;

}  // namespace rcoll::soak
