#include "runner.hpp"

#include <algorithm>
#include <array>
#include <chrono>

#include "common/stats.hpp"

namespace rcoll::bench {
namespace {

bool has_send_buffer(const BenchOptions& options) {
  return options.op == BenchOp::allreduce && !options.inplace;
}

std::size_t largest(const std::vector<std::size_t>& sizes) {
  return sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
}

}  // namespace

Runner::Runner(Comm& comm, const BenchOptions& options, const std::vector<std::size_t>& sizes)
    : comm_(comm),
      options_(options),
      check_(options, comm.rank(), comm.size()),
      send_(has_send_buffer(options) ? largest(sizes) : 0),
      recv_(options.op == BenchOp::barrier ? 0 : largest(sizes)) {}

void* Runner::input() noexcept { return has_send_buffer(options_) ? send_.data() : recv_.data(); }

void Runner::run_once(std::size_t count) {
  switch (options_.op) {
    case BenchOp::allreduce:
      if (options_.inplace) comm_.allreduce(recv_.data(), count, options_.dtype, options_.redop);
      else comm_.allreduce(send_.data(), recv_.data(), count, options_.dtype, options_.redop);
      return;
    case BenchOp::bcast:
      comm_.bcast(recv_.data(), count, options_.dtype, options_.root);
      return;
    case BenchOp::barrier:
      comm_.barrier();
      return;
  }
}

// Times each iteration on its own, then takes per iteration the slowest
// rank (a collective is only done when its last rank is).
std::vector<double> Runner::time_iterations(std::size_t count) {
  for (int i = 0; i < options_.warmup; ++i) run_once(count);
  comm_.barrier();
  std::vector<double> seconds(static_cast<std::size_t>(options_.iters));
  for (double& s : seconds) {
    const auto start = std::chrono::steady_clock::now();
    run_once(count);
    s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  comm_.allreduce(std::span<double>(seconds), ReduceOp::max);
  return seconds;
}

// Outside the timed loop, so that filling and checking cost no time there.
std::uint64_t Runner::verify(std::size_t count) {
  check_.fill_input(input(), count);
  if (has_send_buffer(options_)) check_.fill_sentinel(recv_.data(), count);
  run_once(count);
  std::array<std::uint64_t, 1> errors{check_.count_errors(recv_.data(), count)};
  if (has_send_buffer(options_)) errors[0] += check_.count_changed_input(send_.data(), count);
  comm_.allreduce(std::span<std::uint64_t>(errors), ReduceOp::sum);
  return errors[0];
}

double Runner::bus_factor() const noexcept {
  const double n = comm_.size();
  switch (options_.op) {
    case BenchOp::allreduce: return 2.0 * (n - 1) / n;
    case BenchOp::bcast: return 1.0;
    case BenchOp::barrier: break;
  }
  return 0.0;
}

std::optional<SizeResult> Runner::run_size(std::size_t bytes) {
  SizeResult result;
  if (options_.op != BenchOp::barrier) {
    result.count = bytes / dtype_size(options_.dtype);
    if (result.count == 0) return std::nullopt;
    result.bytes = result.count * dtype_size(options_.dtype);
    check_.fill_input(input(), result.count);
  }
  result.latency = summarize(time_iterations(result.count));
  result.algbw_gbps = gigabytes_per_second(static_cast<double>(result.bytes), result.latency.median_s);
  result.busbw_gbps = result.algbw_gbps * bus_factor();
  if (options_.check && options_.op != BenchOp::barrier) result.errors = verify(result.count);
  return result;
}

}  // namespace rcoll::bench
