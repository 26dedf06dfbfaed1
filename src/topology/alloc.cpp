// rcoll::alloc and friends (include/rcoll/alloc.hpp): the library's own
// placement (placed_buffer.hpp) offered to users.
#include "rcoll/alloc.hpp"

#include "topology/memory_node.hpp"
#include "topology/placed_buffer.hpp"

namespace rcoll {

int preferred_numa_node() noexcept { return topology::process_memory_node(); }

void* alloc(std::size_t bytes) { return topology::placed_allocate(bytes, preferred_numa_node()); }

void* alloc(std::size_t bytes, int numa_node) { return topology::placed_allocate(bytes, numa_node); }

void free(void* p, std::size_t bytes) noexcept { topology::placed_free(p, bytes); }

}  // namespace rcoll
