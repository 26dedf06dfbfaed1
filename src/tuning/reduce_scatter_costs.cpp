// The reduce_scatter algorithms' costs (costs.hpp has the formulas); S is
// the whole send buffer, every rank's block.
#include <algorithm>

#include "collectives/schedule.hpp"
#include "tuning/costs.hpp"

namespace rcoll::tuning {

using collectives::ceil_log2;
using collectives::floor_pow2;

double reduce_scatter_ring_cost(const CostModel& model, std::size_t bytes, std::size_t segment) {
  const double n = model.size, s = static_cast<double>(bytes);
  const LinkCost& l = model.link;
  // Segments pipeline: a rank reduces one while the next arrives, so per
  // byte the slower of link and reduction counts, plus one piece of the
  // other to fill the pipeline. The in-place move of the result: S/n b.
  const double piece = std::min(static_cast<double>(std::max<std::size_t>(segment, 1)), s / n);
  return (n - 1) * l.alpha + (n - 1) / n * s * std::max(l.beta, l.gamma) + piece * std::min(l.beta, l.gamma) +
         s / n * l.beta;
}

double reduce_scatter_recursive_halving_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  const double n = model.size, s = static_cast<double>(bytes);
  const LinkCost& l = model.link;
  const int p = floor_pow2(model.size);
  // Folding: the whole vector in and reduced, this rank's block back out.
  const double fold = p == model.size ? 0 : 2 * l.alpha + s * l.beta + s * l.gamma + s / n * l.beta;
  // The halves are reduced whole, after they arrived: beta and gamma add up.
  return ceil_log2(p) * l.alpha + (p - 1.0) / p * s * (l.beta + l.gamma) + s / n * l.beta + fold;
}

}  // namespace rcoll::tuning
