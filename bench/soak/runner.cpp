#include "runner.hpp"

#include <chrono>
#include <cstdio>

namespace rcoll::soak {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int round_ops = 16;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Every kind at the largest size on every member (so buffers, pools and
// registrations reach their peak before the start figures), then random ops.
void warm_up(std::vector<Comm>& pool, const SoakOptions& options, Planner& planner, Checker& checker,
             RankResult& result) {
  for (int k = 0; k < static_cast<int>(pool.size()); ++k) {
    for (auto [kind, in_place] : {std::pair{OpKind::allreduce, false}, std::pair{OpKind::allreduce, true},
                                  std::pair{OpKind::bcast, false}, std::pair{OpKind::sendrecv, false}}) {
      checker.run(pool[static_cast<std::size_t>(k)], planner.sized(kind, k, options.max_bytes, in_place));
      ++result.warmup_ops;
    }
  }
  for (int i = 0; i < options.warmup_ops; ++i) {
    const Operation op = planner.next();
    checker.run(pool[static_cast<std::size_t>(op.comm)], op);
    ++result.warmup_ops;
  }
}

// Rank 0's decision, shared with every rank: run another round?
bool another_round(Comm& world, const SoakOptions& options, std::uint64_t done, Clock::time_point start) {
  std::uint8_t go = 0;
  if (world.rank() == 0)
    go = (options.ops == 0 || done < options.ops) && (options.duration_s == 0 || since(start) < options.duration_s);
  world.bcast(std::span<std::uint8_t>(&go, 1), 0);
  return go != 0;
}

// Half of --ops done, or half of --duration gone (whichever comes first).
bool past_half(const SoakOptions& options, std::uint64_t done, double seconds) {
  return (options.ops > 0 && 2 * done >= options.ops) || (options.duration_s > 0 && 2 * seconds >= options.duration_s);
}

void print_progress(const RankResult& result, double seconds, std::uint64_t mismatches) {
  const MemoryStatus now = read_memory_status();
  std::printf("# %7.1f s  %10llu ops  %12.1f MiB  mismatches %llu  VmRSS %.1f MiB  VmHWM %.1f MiB  heap %.1f MiB\n", seconds,
              static_cast<unsigned long long>(result.ops), static_cast<double>(result.payload_bytes) / (1 << 20),
              static_cast<unsigned long long>(mismatches), static_cast<double>(now.rss_kib) / 1024,
              static_cast<double>(now.hwm_kib) / 1024, static_cast<double>(now.heap_kib) / 1024);
  std::fflush(stdout);
}

}  // namespace

RankResult run_rank(Comm& world, std::vector<Comm>& pool, const SoakOptions& options) {
  RankResult result;
  Planner planner(options.seed, PlanLimits{world.size(), static_cast<int>(pool.size()), options.max_bytes});
  Checker checker(options.corrupt_every);
  warm_up(pool, options, planner, checker, result);
  world.barrier();
  result.start = read_memory_status();
  const Clock::time_point start = Clock::now();
  double next_progress = options.progress_s;
  while (another_round(world, options, result.ops, start)) {
    for (int i = 0; i < round_ops && (options.ops == 0 || result.ops < options.ops); ++i) {
      const Operation op = planner.next();
      checker.run(pool[static_cast<std::size_t>(op.comm)], op);
      ++result.ops;
      ++result.by_kind[static_cast<std::size_t>(op.kind)];
      result.payload_bytes += payload_bytes(op, world.size());
    }
    if (!result.mid_taken && past_half(options, result.ops, since(start))) {
      result.mid = read_memory_status();
      result.mid_taken = true;
    }
    if (world.rank() == 0 && options.progress_s > 0 && since(start) >= next_progress) {
      print_progress(result, since(start), checker.mismatches());
      next_progress += options.progress_s;
    }
  }
  result.seconds = since(start);
  world.barrier();
  result.end = read_memory_status();
  if (!result.mid_taken) result.mid = result.end;
  result.mismatches = checker.mismatches();
  result.details = checker.details();
  return result;
}

}  // namespace rcoll::soak
