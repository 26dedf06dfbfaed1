#include "runner.hpp"

#include <algorithm>
#include <array>
#include <chrono>

#include "common/stats.hpp"
#include "layout.hpp"

namespace rcoll::bench {
namespace {

std::size_t largest(const std::vector<std::size_t>& sizes) {
  return sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
}

// A plan's buffer needs grow with the block, and the block with the size.
RankPlan largest_plan(Comm& comm, const BenchOptions& options, const std::vector<std::size_t>& sizes) {
  const std::size_t block = layout_size(options.op, largest(sizes), dtype_size(options.dtype), comm.size()).block;
  return plan_rank(options, comm.rank(), comm.size(), block);
}

}  // namespace

Runner::Runner(Comm& comm, const BenchOptions& options, const std::vector<std::size_t>& sizes)
    : comm_(comm), options_(options) {
  const RankPlan most = largest_plan(comm, options, sizes);
  send_ = AlignedBuffer(most.send_count * dtype_size(options.dtype));
  recv_ = AlignedBuffer(most.recv_count * dtype_size(options.dtype));
}

RankPlan Runner::plan(std::size_t block) const { return plan_rank(options_, comm_.rank(), comm_.size(), block); }

// Times each iteration on its own, then takes per iteration the slowest
// rank (a collective is only done when its last rank is).
std::vector<double> Runner::time_iterations(std::size_t block, const CallBuffers& call) {
  for (int i = 0; i < options_.warmup; ++i) run_call(comm_, options_, block, call);
  comm_.barrier();
  std::vector<double> seconds(static_cast<std::size_t>(options_.iters));
  for (double& s : seconds) {
    const auto start = std::chrono::steady_clock::now();
    run_call(comm_, options_, block, call);
    s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  comm_.allreduce(std::span<double>(seconds), ReduceOp::max);
  return seconds;
}

// Outside the timed loop, so that filling and checking cost no time there.
// The timed calls may have changed the inputs (in place), so they are
// written again.
std::uint64_t Runner::verify(const RankPlan& plan, std::size_t block, const CallBuffers& call) {
  write_inputs(plan, options_.dtype, send_.data(), recv_.data());
  run_call(comm_, options_, block, call);
  std::array<std::uint64_t, 1> errors{count_errors(plan, options_.dtype, send_.data(), recv_.data())};
  comm_.allreduce(std::span<std::uint64_t>(errors), ReduceOp::sum);
  return errors[0];
}

std::optional<SizeResult> Runner::run_size(std::size_t bytes) {
  SizeResult result;
  const SizeLayout layout = layout_size(options_.op, bytes, dtype_size(options_.dtype), comm_.size());
  if (options_.op != BenchOp::barrier && layout.block == 0) return std::nullopt;
  result.count = layout.block;
  result.bytes = layout.bytes;
  const RankPlan rank_plan = plan(layout.block);
  const CallBuffers call = call_buffers(rank_plan, options_.op, send_.data(), recv_.data());
  write_inputs(rank_plan, options_.dtype, send_.data(), recv_.data());
  result.latency = summarize(time_iterations(layout.block, call));
  result.algbw_gbps = gigabytes_per_second(static_cast<double>(result.bytes), result.latency.median_s);
  result.busbw_gbps = result.algbw_gbps * bus_factor(options_.op, comm_.size());
  if (options_.check && options_.op != BenchOp::barrier) result.errors = verify(rank_plan, layout.block, call);
  return result;
}

}  // namespace rcoll::bench
