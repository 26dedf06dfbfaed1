// PLACEHOLDER (branch coll only, never on main): replaced by the real schedules.
#include <stdexcept>

#include "collectives/algorithms.hpp"

namespace rcoll::collectives {

void gather_binomial(const Context&, const void*, void*, const Blocks&, int) { throw std::logic_error("gather_binomial: not written yet"); }
void gather_linear(const Context&, const void*, void*, const Blocks&, int) { throw std::logic_error("gather_linear: not written yet"); }
void scatter_binomial(const Context&, const void*, void*, const Blocks&, int) { throw std::logic_error("scatter_binomial: not written yet"); }
void scatter_linear(const Context&, const void*, void*, const Blocks&, int) { throw std::logic_error("scatter_linear: not written yet"); }

}  // namespace rcoll::collectives
