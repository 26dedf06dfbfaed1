// The measurement loop of the peer benchmarks, written once for every
// library and following rcoll-bench's rules (bench/rcoll-bench/runner.cpp):
// per size, `warmup` untimed operations, a barrier, `iters` operations each
// timed on its own with steady_clock (no barrier between them), per
// iteration the slowest rank's time (a max-allreduce of the times), the
// median over iterations; algbw = bytes / median, busbw = algbw times the
// op's bus factor (common/peer_layout.hpp, with the size convention).
// --check re-runs the size once outside the timed loop with fresh input and
// a zeroed output and counts wrong elements (plus changed input elements
// out of place) summed over ranks (common/check_data.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include "common/aligned_buffer.hpp"
#include "common/check_data.hpp"
#include "common/peer_layout.hpp"
#include "common/peer_report.hpp"

namespace rcoll::peers {

// What a library adapter provides. prepare() binds the buffers of the next
// run_once() calls (outside the timed loop, as rcoll's buffers need no
// set-up either): `in` holds layout.send_count elements (in == out where
// send_count is 0: bcast, in-place allreduce), `out` layout.recv_count;
// run_once() is one collective on every rank; finish() makes the last
// run's result visible in `out` before --check reads it (a no-op unless
// the library works in a buffer of its own).
template <typename B>
concept PeerBackend = requires(B b, const float* in, float* out, const PeerLayout& layout,
                               std::vector<double>& seconds, std::uint64_t& errors) {
  { b.rank() } -> std::same_as<int>;
  { b.size() } -> std::same_as<int>;
  b.prepare(PeerOp::allreduce, in, out, layout, 0);
  b.run_once();
  b.finish();
  b.barrier();
  b.max_over_ranks(seconds);
  b.sum_over_ranks(errors);
};

template <PeerBackend B>
class PeerRunner {
 public:
  PeerRunner(B& backend, const PeerOptions& options, std::size_t max_bytes)
      : b_(backend), options_(options), check_(options, backend.rank(), backend.size()),
        send_(has_send() ? max_bytes : 0), recv_(max_bytes) {}

  // Collective. `bytes` is rounded down to whole elements per rank
  // (peer_layout); an empty block: no result (on every rank).
  bool run_size(std::size_t bytes, PeerResult& result) {
    const PeerLayout layout = peer_layout(options_.op, bytes, b_.size(), options_.inplace);
    if (layout.block == 0) return false;
    result.bytes = layout.bytes;
    result.count = layout.block;  // the call's count argument, as rcoll-bench and nccl-tests report it
    check_.fill_input(input(), layout);
    b_.prepare(options_.op, input(), output(), layout, options_.root);
    result.latency = bench::summarize(time_iterations());
    result.algbw_gbps = bench::gigabytes_per_second(static_cast<double>(result.bytes), result.latency.median_s);
    result.busbw_gbps = result.algbw_gbps * bus_factor(options_.op, b_.size());
    result.errors = options_.check ? verify(layout) : 0;
    return true;
  }

 private:
  // Whether a rank has a send buffer of its own (not bcast, not in place):
  // the same for every size of the run.
  bool has_send() const {
    return options_.op != PeerOp::bcast && !(options_.op == PeerOp::allreduce && options_.inplace);
  }
  float* input() { return reinterpret_cast<float*>(has_send() ? send_.data() : recv_.data()); }
  float* output() { return reinterpret_cast<float*>(recv_.data()); }

  std::vector<double> time_iterations() {
    for (int i = 0; i < options_.warmup; ++i) b_.run_once();
    b_.barrier();
    std::vector<double> seconds(static_cast<std::size_t>(options_.iters));
    for (double& s : seconds) {
      const auto start = std::chrono::steady_clock::now();
      b_.run_once();
      s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    b_.max_over_ranks(seconds);
    return seconds;
  }

  std::uint64_t verify(const PeerLayout& layout) {
    check_.fill_input(input(), layout);
    if (has_send()) CheckData::fill_sentinel(output(), layout.recv_count);
    b_.prepare(options_.op, input(), output(), layout, options_.root);
    b_.run_once();
    b_.finish();
    std::uint64_t errors = check_.count_errors(output(), layout);
    if (has_send()) errors += check_.count_changed_input(input(), layout);
    b_.sum_over_ranks(errors);
    return errors;
  }

  B& b_;
  const PeerOptions& options_;
  CheckData check_;
  bench::AlignedBuffer send_;
  bench::AlignedBuffer recv_;
};

// Runs the whole sweep; rank 0 prints and writes --json. Returns the exit
// status: 0, or 1 when --check found wrong elements.
template <PeerBackend B>
int run_peer_sweep(B& backend, PeerRunInfo& info) {
  const PeerOptions& options = info.options;
  const std::vector<std::size_t> sizes = peer_sweep(options);
  std::size_t largest = 0;
  for (std::size_t s : sizes) largest = s > largest ? s : largest;
  PeerRunner<B> runner(backend, options, largest);
  const bool printer = backend.rank() == 0;
  if (printer) print_peer_header(stdout, info);
  std::vector<PeerResult> results;
  for (std::size_t bytes : sizes) {
    PeerResult r;
    if (!runner.run_size(bytes, r)) continue;
    if (printer) print_peer_row(stdout, info, r);
    results.push_back(r);
  }
  if (printer) print_peer_footer(stdout, results);
  if (printer && !options.json_path.empty()) write_peer_json(options.json_path, info, results);
  for (const PeerResult& r : results)
    if (r.errors != 0) return 1;
  return 0;
}

}  // namespace rcoll::peers
