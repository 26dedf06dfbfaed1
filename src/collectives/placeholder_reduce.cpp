// PLACEHOLDER (branch coll only, never on main): replaced by the real schedules.
#include <stdexcept>

#include "collectives/algorithms.hpp"

namespace rcoll::collectives {

void reduce_scatter_gather(const Context&, const void*, void*, std::size_t, DataType, ReduceOp, int) { throw std::logic_error("reduce_scatter_gather: not written yet"); }

}  // namespace rcoll::collectives
