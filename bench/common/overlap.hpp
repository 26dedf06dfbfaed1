// The overlap measurement (rcoll-bench --overlap, mpi_bench --overlap): how
// much of a non-blocking allreduce a computation of the same length hides,
// as OSU's osu_iallreduce defines it. Per size, each timed as every other
// loop (warm-up, barrier, per iteration the slowest rank, the median):
//   comm      the blocking allreduce alone;
//   compute   ComputeLoop::run(comm) alone;
//   overlap   start the allreduce, run the same computation polling the
//             request every `poll_every_us`, then wait for it;
//   hidden    (comm + compute - overlap) / comm, clamped to [0, 1]: 1 when
//             the computation covered all of the communication, 0 when
//             the two took as long as one after the other.
// A Backend has run_blocking(), start(), test(), wait(), barrier() and
// max_over_ranks(std::vector<double>&) for one prepared allreduce.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include "common/compute_loop.hpp"
#include "common/stats.hpp"

namespace rcoll::bench {

struct OverlapResult {
  double comm_us = 0;
  double compute_us = 0;
  double overlap_us = 0;
  double hidden = 0;  // 0..1
};

template <typename Backend, typename Body>
double median_us(Backend& backend, int warmup, int iters, Body&& body) {
  for (int i = 0; i < warmup; ++i) body();
  backend.barrier();
  std::vector<double> seconds(static_cast<std::size_t>(iters));
  for (double& s : seconds) {
    const auto start = std::chrono::steady_clock::now();
    body();
    s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  backend.max_over_ranks(seconds);
  return summarize(seconds).median_s * 1e6;
}

template <typename Backend>
OverlapResult measure_overlap(Backend& backend, ComputeLoop& loop, int warmup, int iters, double poll_every_us) {
  OverlapResult r;
  r.comm_us = median_us(backend, warmup, iters, [&] { backend.run_blocking(); });
  r.compute_us = median_us(backend, warmup, iters, [&] { loop.run(r.comm_us, 0, [] {}); });
  r.overlap_us = median_us(backend, warmup, iters, [&] {
    backend.start();
    loop.run(r.comm_us, poll_every_us, [&] { backend.test(); });
    backend.wait();
  });
  if (r.comm_us > 0) r.hidden = std::clamp((r.comm_us + r.compute_us - r.overlap_us) / r.comm_us, 0.0, 1.0);
  return r;
}

}  // namespace rcoll::bench
