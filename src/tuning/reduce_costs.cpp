// The reduce algorithms' costs (costs.hpp has the formulas); S is the vector.
#include "collectives/schedule.hpp"
#include "tuning/costs.hpp"

namespace rcoll::tuning {

using collectives::ceil_log2;

double reduce_binomial_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  // The tree allreduce's reduce phase: the root takes the whole vector from
  // each of its lg children and reduces it; pieces overlap the levels.
  const double s = static_cast<double>(bytes);
  const LinkCost& l = model.link;
  return ceil_log2(model.size) * (l.alpha + s * l.beta + s * l.gamma);
}

double reduce_scatter_gather_cost(const CostModel& model, std::size_t bytes, std::size_t segment) {
  // The pipelined ring over the whole vector, then n - 1 chunks into the root at once.
  const double n = model.size, s = static_cast<double>(bytes);
  const double gather = model.size == 1 ? 0 : model.link.alpha + (n - 1) / n * s * model.link.beta;
  return reduce_scatter_ring_cost(model, bytes, segment) + gather;
}

}  // namespace rcoll::tuning
