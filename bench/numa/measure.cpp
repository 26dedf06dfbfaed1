#include "measure.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "collectives/reduce.hpp"
#include "topology/numa_alloc.hpp"

namespace rcoll::bench {
namespace {

template <typename Kernel>
std::vector<double> time_runs(const NumaOptions& options, Kernel kernel) {
  for (int i = 0; i < options.warmup; ++i) kernel();
  std::vector<double> seconds;
  for (int i = 0; i < options.reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    kernel();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return seconds;
}

// Element checks at a few places, so that a wrong kernel cannot pass as fast.
std::size_t count_wrong(const float* values, std::size_t count, float expected) {
  std::size_t wrong = 0;
  for (std::size_t i : {std::size_t{0}, count / 3, count / 2, count - 1}) wrong += values[i] != expected;
  return wrong;
}

}  // namespace

NodeResult measure_node(const topology::Topology& machine, const NumaOptions& options, int node, bool local) {
  NodeResult result;
  result.node = node;
  result.local = local;
  topology::NumaBuffer source(machine, options.bytes, node);
  topology::NumaBuffer target(machine, options.bytes, node);
  result.bound = source.bound() && target.bound();
  result.fallback = source.bound() ? target.fallback_reason() : source.fallback_reason();
  const std::size_t count = options.bytes / sizeof(float);
  auto* a = static_cast<float*>(target.data());
  auto* b = static_cast<float*>(source.data());
  // Written here, by the measuring thread: every page exists before timing
  // (and, unbound, lands on first touch).
  std::fill_n(b, count, 1.0f);
  std::memset(a, 0, options.bytes);
  result.pages_on = topology::memory_location(machine, a, options.bytes).to_list();

  result.copy = summarize(time_runs(options, [&] { std::memcpy(a, b, options.bytes); }));
  result.errors += count_wrong(a, count, 1.0f);
  std::memset(a, 0, options.bytes);
  result.reduce = summarize(time_runs(options, [&] {
    collectives::reduce(a, a, b, count, DataType::float32, ReduceOp::sum);
  }));
  result.errors += count_wrong(a, count, static_cast<float>(options.warmup + options.reps));
  result.copy_gbps = gigabytes_per_second(static_cast<double>(options.bytes), result.copy.median_s);
  result.reduce_gbps = gigabytes_per_second(static_cast<double>(options.bytes), result.reduce.median_s);
  return result;
}

}  // namespace rcoll::bench
