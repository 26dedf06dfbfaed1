// PLACEHOLDER (branch coll only, never on main): replaced by the real schedules.
#include <stdexcept>

#include "collectives/algorithms.hpp"

namespace rcoll::collectives {

void allgather_ring(const Context&, const void*, void*, const Blocks&) { throw std::logic_error("allgather_ring: not written yet"); }
void allgather_recursive_doubling(const Context&, const void*, void*, const Blocks&) { throw std::logic_error("allgather_recursive_doubling: not written yet"); }
void allgather_bruck(const Context&, const void*, void*, const Blocks&) { throw std::logic_error("allgather_bruck: not written yet"); }

}  // namespace rcoll::collectives
