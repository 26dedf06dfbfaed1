// The soak test's report: every rank's figures gathered over the world
// communicator, the verdict, and its text and JSON forms (rank 0 prints).
//
// The memory check: VmRSS and VmHWM at the end may exceed their values
// half-way through the measured phase by at most --rss-growth-percent %
// + --rss-growth-mib MiB (default 10 % + 8 MiB). Half-way, not after the
// warm-up: the library keeps bounded caches that fill up with use (the TCP
// transport keeps up to 16 idle 64 KiB eager blocks per peer and
// communicator; each thread keeps its largest collective scratch, up to
// 16 MiB), so memory may rise after the warm-up and then level off; a leak
// keeps rising through the second half. Start figures are reported too.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <rcoll/comm.hpp>

#include "options.hpp"
#include "pool.hpp"
#include "runner.hpp"

namespace rcoll::soak {

struct RankFigures {
  std::uint64_t ops = 0;
  std::uint64_t mismatches = 0;
  MemoryStatus start;
  MemoryStatus mid;
  MemoryStatus end;
  bool rss_grew = false;  // VmRSS or VmHWM at the end beyond the bound over mid
};

struct JobSummary {
  int world = 0;
  std::string transport;
  std::vector<PoolSetup> pool;
  RankResult rank0;                  // plan-derived counts are the same on every rank
  std::vector<RankFigures> ranks;
  std::uint64_t mismatches = 0;      // all ranks
  bool rss_ok = true;
  bool pass() const noexcept { return mismatches == 0 && rss_ok; }
};

// Collective over `world`: every rank returns the same summary.
JobSummary gather_summary(Comm& world, const RankResult& mine, const SoakOptions& options,
                          const std::vector<PoolSetup>& pool, const std::string& transport);

void print_summary(std::FILE* out, const JobSummary& summary, const SoakOptions& options);
// Returns false (and says why on stderr) if the file cannot be written.
bool write_json(const std::string& path, const JobSummary& summary, const SoakOptions& options);

}  // namespace rcoll::soak
