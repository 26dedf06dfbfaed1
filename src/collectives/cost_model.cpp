#include "collectives/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <vector>

#include "collectives/schedule.hpp"

namespace rcoll::collectives {

LinkCost fallback_link_cost(const transport::Capabilities& caps) {
  if (caps.remote_write) {
    // RDMA: a few microseconds per message, ~100 Gbit/s.
    return {3e-6, 1.0 / 12e9, 1.0 / 10e9};
  }
  // TCP (and in-process): loopback moves 6-7 GB/s per stream; a message costs
  // ~5 us busy-polling and tens of us once a wait blocks (docs/GUIDE facts).
  return {15e-6, 1.0 / 5e9, 1.0 / 10e9};
}

bool plausible(const LinkCost& link) {
  auto ok = [](double v) { return std::isfinite(v) && v > 0; };
  return ok(link.alpha) && ok(link.beta) && ok(link.gamma);
}

std::size_t modelled_segment(const transport::Capabilities& caps) {
  return caps.preferred_segment > 0 ? caps.preferred_segment : std::size_t{1} << 20;
}

double allreduce_cost(AllreduceAlgo algo, std::size_t bytes, int size, const LinkCost& link) {
  const double n = size;
  const double s = static_cast<double>(bytes);
  const double lg = ceil_log2(size);
  switch (algo) {
    case AllreduceAlgo::ring:
      return 2 * (n - 1) * link.alpha + 2 * s * (n - 1) / n * link.beta + s * (n - 1) / n * link.gamma;
    case AllreduceAlgo::recursive_doubling: {
      const int p = floor_pow2(size);
      const double fold = p == size ? 0 : 2 * (link.alpha + s * link.beta) + s * link.gamma;
      return ceil_log2(p) * (link.alpha + s * link.beta + s * link.gamma) + fold;
    }
    case AllreduceAlgo::tree:
      return 2 * lg * (link.alpha + s * link.beta) + lg * s * link.gamma;
    case AllreduceAlgo::automatic: break;
  }
  return std::numeric_limits<double>::infinity();
}

namespace {

double bcast_link_cost(BcastAlgo algo, std::size_t bytes, int size, const LinkCost& link, std::size_t segment) {
  const double n = size;
  const double s = static_cast<double>(bytes);
  const double lg = ceil_log2(size);
  switch (algo) {
    case BcastAlgo::binomial:
      return lg * (link.alpha + s * link.beta);
    case BcastAlgo::scatter_allgather:
      return (lg + n - 1) * link.alpha + 2 * s * (n - 1) / n * link.beta;
    case BcastAlgo::chain: {
      const std::size_t segments = segment_count(bytes, std::max<std::size_t>(segment, 1));
      const double k = static_cast<double>(std::max<std::size_t>(1, segments));
      return (n - 2 + k) * (link.alpha + s / k * link.beta);
    }
    case BcastAlgo::automatic: break;
  }
  return std::numeric_limits<double>::infinity();
}

}  // namespace

double bcast_rank_copies(BcastAlgo algo, std::size_t bytes, int relative, int size) {
  const double s = static_cast<double>(bytes);
  const double received = relative == 0 ? 0 : s;
  switch (algo) {
    case BcastAlgo::binomial:
      return received + s * static_cast<double>(binomial_tree(relative, size, 0).children.size());
    case BcastAlgo::chain:
      return received + (relative == size - 1 ? 0 : s);
    case BcastAlgo::scatter_allgather: {
      const double piece = s / size;
      const double subtree = binomial_subtree_size(relative, size);
      const double scatter = relative == 0 ? (size - 1) * piece : (2 * subtree - 1) * piece;
      return scatter + 2 * (size - 1) * piece;  // the ring allgather: n - 1 pieces in, n - 1 out
    }
    case BcastAlgo::automatic: break;
  }
  return 0;
}

double bcast_busiest_core(BcastAlgo algo, std::size_t bytes, int size, int cores) {
  // Linear in the bytes, and a ChoiceTable asks at thousands of sizes: the
  // copies per byte are summed once per (algo, size, cores) and thread.
  thread_local std::map<std::tuple<BcastAlgo, int, int>, double> per_byte;
  auto [it, added] = per_byte.try_emplace({algo, size, cores}, 0.0);
  if (added) {
    std::vector<double> load(static_cast<std::size_t>(std::clamp(cores, 1, std::max(size, 1))), 0.0);
    for (int v = 0; v < size; ++v) load[static_cast<std::size_t>(v) % load.size()] += bcast_rank_copies(algo, 1, v, size);
    it->second = *std::max_element(load.begin(), load.end());
  }
  return it->second * static_cast<double>(bytes);
}

double bcast_cost(BcastAlgo algo, std::size_t bytes, int size, const LinkCost& link, std::size_t segment,
                  int shared_cores) {
  const double cost = bcast_link_cost(algo, bytes, size, link, segment);
  if (shared_cores <= 0 || size <= shared_cores) return cost;
  if (algo == BcastAlgo::scatter_allgather) return std::numeric_limits<double>::infinity();
  return cost + bcast_busiest_core(algo, bytes, size, shared_cores) * link.beta;
}

}  // namespace rcoll::collectives
