#include "overlap_run.hpp"

#include <cstdio>
#include <vector>

#include "common/overlap.hpp"
#include "common/overlap_report.hpp"

namespace rcoll::bench {
namespace {

// One prepared iallreduce of `count` floats, as common/overlap.hpp drives it.
class RcollOverlap {
 public:
  RcollOverlap(Comm& comm, std::size_t count) : comm_(comm), send_(count, 1.0f), recv_(count) {}

  void run_blocking() { comm_.allreduce(send_.data(), recv_.data(), send_.size(), DataType::float32, ReduceOp::sum); }
  void start() {
    request_ = comm_.iallreduce(send_.data(), recv_.data(), send_.size(), DataType::float32, ReduceOp::sum);
  }
  void test() { request_.test(); }
  void wait() { request_.wait(); }
  void barrier() { comm_.barrier(); }
  void max_over_ranks(std::vector<double>& seconds) { comm_.allreduce(std::span<double>(seconds), ReduceOp::max); }

 private:
  Comm& comm_;
  std::vector<float> send_, recv_;
  Request request_;
};

}  // namespace

int run_overlap(Comm& comm, const RunInfo& info) {
  const BenchOptions& options = info.options;
  const bool printer = comm.rank() == 0;
  ComputeLoop loop;
  if (printer) print_overlap_header(stdout, "rcoll " + info.transport, comm.size(), options.poll_every_us);
  for (std::size_t bytes : sweep_sizes(options)) {
    const std::size_t count = bytes / sizeof(float);
    if (count == 0) continue;
    RcollOverlap backend(comm, count);
    const OverlapResult result = measure_overlap(backend, loop, options.warmup, options.iters, options.poll_every_us);
    if (printer) print_overlap_row(stdout, count * sizeof(float), result);
  }
  return 0;
}

}  // namespace rcoll::bench
