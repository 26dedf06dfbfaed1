// PLACEHOLDER (branch coll only, never on main): replaced by the real schedules.
#include <stdexcept>

#include "collectives/algorithms.hpp"

namespace rcoll::collectives {

void reduce_scatter_recursive_halving(const Context&, const void*, void*, const Blocks&, DataType, ReduceOp) { throw std::logic_error("reduce_scatter_recursive_halving: not written yet"); }

}  // namespace rcoll::collectives
