// The allgather algorithms' costs (costs.hpp has the formulas). S is the
// whole receive buffer, S/n one block. Local copies are priced at the
// link's beta: a stand-in for memcpy's rate, which the link model does
// not measure, and of the same order on the loopback links the fallback
// describes (a memcpy moves a few GB/s per core on large buffers). Every
// algorithm copies its own block into place when called out of place;
// that S/n is counted for all of them, so it only shifts them alike.
#include "collectives/schedule.hpp"
#include "tuning/costs.hpp"

namespace rcoll::tuning {
namespace {

using collectives::ceil_log2;
using collectives::floor_pow2;

// (n - 1)/n S and S/n, in seconds over one link.
double gathered(const CostModel& model, double s) { return (model.size - 1) * s / model.size * model.link.beta; }
double block(const CostModel& model, double s) { return s / model.size * model.link.beta; }

}  // namespace

double allgather_ring_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  const double s = static_cast<double>(bytes);
  return (model.size - 1) * model.link.alpha + gathered(model, s) + block(model, s);
}

double allgather_recursive_doubling_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  const double s = static_cast<double>(bytes);
  const int pof2 = floor_pow2(model.size);
  double cost = ceil_log2(pof2) * model.link.alpha + gathered(model, s) + block(model, s);
  // The fold (one block in) and the unfold (all the others back out).
  if (pof2 != model.size) cost += 2 * model.link.alpha + block(model, s) + gathered(model, s);
  return cost;
}

double allgather_bruck_cost(const CostModel& model, std::size_t bytes, std::size_t /*segment*/) {
  const double s = static_cast<double>(bytes);
  // The own block into scratch and the rotation of all S out of it.
  return ceil_log2(model.size) * model.link.alpha + gathered(model, s) + block(model, s) + s * model.link.beta;
}

}  // namespace rcoll::tuning
