// The bcast algorithms' costs, and the copies per core that ranks sharing
// cores add to them (costs.hpp has the formulas).
#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <vector>

#include "collectives/schedule.hpp"
#include "tuning/costs.hpp"

namespace rcoll::tuning {
namespace {

using collectives::binomial_subtree_size;
using collectives::ceil_log2;

bool shares_cores(const CostModel& model) { return model.shared_cores > 0 && model.size > model.shared_cores; }

// The busiest core's copies, priced like link bytes; 0 without shared cores.
double core_copies(const CostModel& model, BcastAlgo algo, std::size_t bytes) {
  if (!shares_cores(model)) return 0;
  return bcast_busiest_core(algo, bytes, model.size, model.shared_cores) * model.link.beta;
}

}  // namespace

double bcast_binomial_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  const double s = static_cast<double>(bytes);
  return ceil_log2(model.size) * (model.link.alpha + s * model.link.beta) +
         core_copies(model, BcastAlgo::binomial, bytes);
}

double bcast_scatter_allgather_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  if (shares_cores(model)) return std::numeric_limits<double>::infinity();
  const double n = model.size, s = static_cast<double>(bytes);
  return (ceil_log2(model.size) + n - 1) * model.link.alpha + 2 * s * (n - 1) / n * model.link.beta;
}

double bcast_chain_cost(const CostModel& model, std::size_t bytes, std::size_t segment) {
  const double n = model.size, s = static_cast<double>(bytes);
  const std::size_t pieces = collectives::segment_count(bytes, std::max<std::size_t>(segment, 1));
  const double k = static_cast<double>(std::max<std::size_t>(1, pieces));
  return (n - 2 + k) * (model.link.alpha + s / k * model.link.beta) + core_copies(model, BcastAlgo::chain, bytes);
}

double bcast_rank_copies(BcastAlgo algo, std::size_t bytes, int relative, int size) {
  const double s = static_cast<double>(bytes);
  const double received = relative == 0 ? 0 : s;
  switch (algo) {
    case BcastAlgo::binomial:
      return received + s * static_cast<double>(collectives::binomial_tree(relative, size, 0).children.size());
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
  // Linear in the bytes, and a plan asks at thousands of sizes: the copies
  // per byte are summed once per (algo, size, cores) and thread.
  thread_local std::map<std::tuple<BcastAlgo, int, int>, double> per_byte;
  auto [it, added] = per_byte.try_emplace({algo, size, cores}, 0.0);
  if (added) {
    std::vector<double> load(static_cast<std::size_t>(std::clamp(cores, 1, std::max(size, 1))), 0.0);
    for (int v = 0; v < size; ++v) load[static_cast<std::size_t>(v) % load.size()] += bcast_rank_copies(algo, 1, v, size);
    it->second = *std::max_element(load.begin(), load.end());
  }
  return it->second * static_cast<double>(bytes);
}

}  // namespace rcoll::tuning
