// One rank's soak run: warm-up, the measured random mix, and the figures
// it reports: memory after the warm-up (start), half-way (mid) and at the
// end; the growth check compares end with mid (report.hpp). Every rank runs it with the same options and seed; rank 0
// decides when a --duration run ends and tells the others over the world
// communicator (every 16 operations), so all ranks stop at the same point.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <rcoll/comm.hpp>

#include "check.hpp"
#include "memory.hpp"
#include "options.hpp"
#include "plan.hpp"

namespace rcoll::soak {

struct RankResult {
  std::uint64_t ops = 0;                             // measured operations
  std::array<std::uint64_t, op_kinds> by_kind{};     // indexed by OpKind
  std::uint64_t payload_bytes = 0;                   // see payload_bytes()
  std::uint64_t warmup_ops = 0;
  std::uint64_t mismatches = 0;                      // operations with any wrong byte, warm-up included
  std::vector<Mismatch> details;
  MemoryStatus start;                                // after the warm-up
  MemoryStatus mid;                                  // half-way (see past_half in runner.cpp)
  bool mid_taken = false;
  MemoryStatus end;
  double seconds = 0;                                // measured phase
};

// Runs this rank's part; rcoll errors propagate.
RankResult run_rank(Comm& world, std::vector<Comm>& pool, const SoakOptions& options);

}  // namespace rcoll::soak
