#include "topology/memory_node.hpp"

#include <atomic>

#include "topology/locality.hpp"

namespace rcoll::topology {
namespace {

std::atomic<int> chosen_node{-1};

bool contains(const std::vector<unsigned>& nodes, int node) {
  for (unsigned n : nodes) {
    if (static_cast<int>(n) == node) return true;
  }
  return false;
}

}  // namespace

MemoryChoice choose_memory_node(const Topology& topology, const Placement& placement, bool cpu_bound,
                                bool can_bind_memory) {
  if (topology.numa_node_count() <= 1) return {-1, "one NUMA node: default allocation"};
  if (!can_bind_memory) return {-1, "memory binding unsupported: default allocation (first touch)"};
  const bool cpus_on_node = cpu_bound && placement.numa_node >= 0;
  Locality locality = device_locality(topology, placement.device);
  // A device every node is equally close to (it hangs from the machine)
  // gives no locality to follow.
  const bool local_nodes = locality.found && !locality.numa_nodes.empty() &&
                           locality.numa_nodes.size() < static_cast<std::size_t>(topology.numa_node_count());
  if (local_nodes) {
    if (cpus_on_node && contains(locality.numa_nodes, placement.numa_node)) {
      return {placement.numa_node, "local to " + locality.device + " and to the bound CPUs"};
    }
    return {locality.first_numa_node(), "local to " + locality.device};
  }
  // The locality's own reason is the report's to show (it is often a
  // placement fallback too); here only what it means for memory.
  std::string unknown = placement.device.empty() ? "no device"
                        : locality.found         ? placement.device + " is equally close to every node"
                                                 : placement.device + "'s node unknown";
  if (cpus_on_node) return {placement.numa_node, "the bound CPUs' node; " + unknown};
  return {-1, unknown + ", not bound: default allocation (first touch)"};
}

int process_memory_node() noexcept { return chosen_node.load(std::memory_order_acquire); }

void set_process_memory_node(int node) noexcept { chosen_node.store(node, std::memory_order_release); }

}  // namespace rcoll::topology
