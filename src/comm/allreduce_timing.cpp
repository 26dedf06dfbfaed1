#include "comm/allreduce_timing.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "collectives/calibration.hpp"
#include "collectives/choose.hpp"
#include "collectives/collectives.hpp"
#include "comm/tags.hpp"

namespace rcoll::comm {
namespace {

constexpr std::size_t candidates = collectives::AllreduceTimes::algos.size();

// Runs the timing calls in their own tag range, one sequence number each.
class TimingCalls {
 public:
  explicit TimingCalls(const collectives::Context& shape) : shape_(shape) {}

  // Seconds of one allreduce of `count` elements from `send` into `recv`.
  template <typename T>
  double run(AllreduceAlgo algo, const T* send, T* recv, std::size_t count, DataType type, ReduceOp op) {
    const std::uint64_t sequence = next_++;
    auto label = [&] {
      return fmt::format("start-up allreduce timing #{} ({}, {})", sequence - timing_sequence_base,
                         to_string(algo), collectives::human_bytes(count * sizeof(T)));
    };
    collectives::Context ctx = shape_;
    ctx.tag_base = collective_tag_base(sequence);
    ctx.label = LazyText(label);
    const auto start = std::chrono::steady_clock::now();
    collectives::allreduce(ctx, algo, send, recv, count, type, op);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  const collectives::Context& shape_;
  std::uint64_t next_ = timing_sequence_base;
};

// The median of each candidate's calls at each size, from `seconds` laid
// out as time_allreduce_algorithms fills it.
collectives::AllreduceTimes medians(const std::vector<double>& seconds, const AllreduceTimingPlan& plan) {
  collectives::AllreduceTimes times;
  times.bytes = plan.bytes;
  auto next = seconds.begin();
  for (std::size_t s = 0; s < plan.bytes.size(); ++s)
    for (std::size_t a = 0; a < candidates; ++a) {
      const auto per_algo = static_cast<std::ptrdiff_t>(plan.rounds * plan.timed[s]);
      times.seconds[a][s] = collectives::median(std::vector<double>(next, next + per_algo));
      next += per_algo;
    }
  return times;
}

}  // namespace

double AllreduceTimingPlan::predicted_seconds(int size, int cores, const collectives::LinkCost& link) const {
  double total = 0;
  for (std::size_t s = 0; s < bytes.size(); ++s)
    for (AllreduceAlgo algo : collectives::AllreduceTimes::algos)
      total += rounds * (warmups + timed[s]) * collectives::allreduce_cost(algo, bytes[s], size, link);
  return total * size / std::max(cores, 1);
}

collectives::AllreduceTimes time_allreduce_algorithms(const collectives::Context& shape,
                                                      const AllreduceTimingPlan& plan) {
  TimingCalls calls(shape);
  std::vector<float> send(plan.bytes.back() / sizeof(float), 1.0f);
  std::vector<float> recv(send.size());
  // This rank's time of every timed call, size by size, candidate by candidate.
  std::vector<double> seconds;
  for (std::size_t s = 0; s < plan.bytes.size(); ++s) {
    const std::size_t count = plan.bytes[s] / sizeof(float);
    const auto per_algo = static_cast<std::size_t>(plan.rounds * plan.timed[s]);
    const std::size_t base = seconds.size();
    seconds.resize(base + candidates * per_algo);
    for (int round = 0; round < plan.rounds; ++round)
      for (std::size_t k = 0; k < candidates; ++k) {
        const std::size_t a = (k + static_cast<std::size_t>(round)) % candidates;
        double* out = &seconds[base + a * per_algo + static_cast<std::size_t>(round * plan.timed[s])];
        for (int i = 0; i < plan.warmups + plan.timed[s]; ++i) {
          const double t = calls.run(collectives::AllreduceTimes::algos[a], send.data(), recv.data(), count,
                                     DataType::float32, ReduceOp::sum);
          if (i >= plan.warmups) *out++ = t;
        }
      }
  }
  // Per call the slowest rank, as rcoll-bench counts: the same doubles everywhere.
  calls.run(AllreduceAlgo::recursive_doubling, seconds.data(), seconds.data(), seconds.size(), DataType::float64,
            ReduceOp::max);
  return medians(seconds, plan);
}

}  // namespace rcoll::comm
