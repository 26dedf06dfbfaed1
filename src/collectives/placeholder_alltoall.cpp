// PLACEHOLDER (branch coll only, never on main): replaced by the real schedules.
#include <stdexcept>

#include "collectives/algorithms.hpp"

namespace rcoll::collectives {

void alltoall_pairwise(const Context&, const void*, const Blocks&, void*, const Blocks&) { throw std::logic_error("alltoall_pairwise: not written yet"); }
void alltoall_bruck(const Context&, const void*, const Blocks&, void*, const Blocks&) { throw std::logic_error("alltoall_bruck: not written yet"); }

}  // namespace rcoll::collectives
