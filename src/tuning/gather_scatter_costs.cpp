// The gather and scatter algorithms' costs (costs.hpp has the formulas);
// a scatter mirrors its gather, with the same messages and copies the
// other way round, so the two share them. S is the root's whole buffer,
// S/n one block; local copies are priced at the link's beta, as in
// allgather_costs.cpp (a stand-in for memcpy's rate).
#include <algorithm>

#include "collectives/schedule.hpp"
#include "tuning/costs.hpp"

namespace rcoll::tuning {
namespace {

using collectives::ceil_log2;

// The blocks the root of a binomial gather or scatter copies through
// scratch, on average over the roots: the child run [c, c + len) (c = 2^j)
// that holds relative rank n - root strictly inside wraps around the end
// of the buffer (binomial_blocks.hpp); len - 1 of the n roots do that for
// each child, copying len blocks.
double mean_wrapped_blocks(int size) {
  double sum = 0;
  for (long c = 1; c < size; c *= 2) {
    const double len = static_cast<double>(std::min<long>(2 * c, size) - c);
    sum += (len - 1) * len;
  }
  return sum / size;
}

double linear(const CostModel& model, std::size_t bytes) {
  const double n = model.size, s = static_cast<double>(bytes);
  return (n - 1) * model.link.alpha + (n - 1) / n * s * model.link.beta + s / n * model.link.beta;
}

// The inner ranks on the tree's longest path (lg - 1 of them) each copy
// their own block through scratch, and the root its wrapping child's run.
double binomial(const CostModel& model, std::size_t bytes) {
  const double n = model.size, s = static_cast<double>(bytes);
  const int lg = ceil_log2(model.size);
  const double copied_blocks = 1 + std::max(lg - 1, 0) + mean_wrapped_blocks(model.size);
  return lg * model.link.alpha + (n - 1) / n * s * model.link.beta + copied_blocks * s / n * model.link.beta;
}

}  // namespace

double gather_binomial_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  return binomial(model, bytes);
}
double gather_linear_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  return linear(model, bytes);
}
double scatter_binomial_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  return binomial(model, bytes);
}
double scatter_linear_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  return linear(model, bytes);
}

}  // namespace rcoll::tuning
