// The alltoall algorithms' costs (costs.hpp has the formulas); S is one
// rank's whole send buffer, n blocks of S/n. Local copies at beta, a
// stand-in for memcpy's rate.
#include "collectives/schedule.hpp"
#include "tuning/costs.hpp"

namespace rcoll::tuning {

using collectives::ceil_log2;

double alltoall_pairwise_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  const double n = model.size, s = static_cast<double>(bytes);
  const LinkCost& l = model.link;
  return (n - 1) * (l.alpha + s / n * l.beta) + s / n * l.beta;  // the own block copied locally
}

double alltoall_bruck_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  const double s = static_cast<double>(bytes);
  const double lg = ceil_log2(model.size);
  const LinkCost& l = model.link;
  // Two rotations and, per step, packing and unpacking half the blocks.
  return lg * (l.alpha + s / 2 * l.beta) + (2 + lg) * s * l.beta;
}

}  // namespace rcoll::tuning
