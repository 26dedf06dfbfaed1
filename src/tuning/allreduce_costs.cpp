// The allreduce algorithms' costs (costs.hpp has the formulas).
#include "collectives/schedule.hpp"
#include "tuning/costs.hpp"

namespace rcoll::tuning {

using collectives::ceil_log2;
using collectives::floor_pow2;

double allreduce_ring_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  const double n = model.size, s = static_cast<double>(bytes);
  const LinkCost& l = model.link;
  return 2 * (n - 1) * l.alpha + 2 * s * (n - 1) / n * l.beta + s * (n - 1) / n * l.gamma;
}

double allreduce_recursive_doubling_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  const double s = static_cast<double>(bytes);
  const LinkCost& l = model.link;
  const int p = floor_pow2(model.size);
  const double fold = p == model.size ? 0 : 2 * (l.alpha + s * l.beta) + s * l.gamma;
  return ceil_log2(p) * (l.alpha + s * l.beta + s * l.gamma) + fold;
}

double allreduce_tree_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  const double s = static_cast<double>(bytes);
  const double lg = ceil_log2(model.size);
  const LinkCost& l = model.link;
  return 2 * lg * (l.alpha + s * l.beta) + lg * s * l.gamma;
}

}  // namespace rcoll::tuning
