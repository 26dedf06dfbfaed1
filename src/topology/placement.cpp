#include "topology/placement.hpp"

#include <array>
#include <vector>

#include "topology/locality.hpp"

namespace rcoll::topology {
namespace {

constexpr std::array<std::pair<std::string_view, BindPolicy>, 5> kPolicies{{{"none", BindPolicy::none},
                                                                            {"core", BindPolicy::core},
                                                                            {"numa", BindPolicy::numa},
                                                                            {"nic", BindPolicy::nic},
                                                                            {"auto", BindPolicy::automatic}}};

// Cores (or PUs, where hwloc found no cores) inside `within`, in logical order.
std::vector<hwloc_obj_t> cores_inside(const Topology& topology, hwloc_const_cpuset_t within) {
  hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(topology.get(), HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
                                                                                       : HWLOC_OBJ_PU;
  std::vector<hwloc_obj_t> cores;
  for (hwloc_obj_t obj = nullptr;
       (obj = hwloc_get_next_obj_inside_cpuset_by_type(topology.get(), within, type, obj)) != nullptr;) {
    cores.push_back(obj);
  }
  return cores;
}

// The NUMA node for memory of a rank bound to `cpuset`: the first node of
// the cpuset's nodeset.
int memory_node(const Topology& topology, const Bitmap& cpuset) {
  Bitmap nodes;
  hwloc_cpuset_to_nodeset(topology.get(), cpuset.raw(), nodes.raw());
  return nodes.first();
}

std::string oversubscribed(int local_size, int count, std::string_view what) {
  if (local_size <= count) return {};
  return "oversubscribed: " + std::to_string(local_size) + " ranks on " + std::to_string(count) + " " +
         std::string(what) + ", ranks share them round-robin";
}

void on_core_of(const Topology& topology, const std::vector<hwloc_obj_t>& cores, int local_rank, Placement& p) {
  p.cpuset = Bitmap(cores[static_cast<size_t>(local_rank) % cores.size()]->cpuset);
  p.numa_node = memory_node(topology, p.cpuset);
}

std::vector<hwloc_obj_t> machine_cores(const Topology& topology) {
  return cores_inside(topology, hwloc_topology_get_topology_cpuset(topology.get()));
}

// `cores`: the machine's (machine_cores).
void place_core(const Topology& topology, const std::vector<hwloc_obj_t>& cores, int local_rank, int local_size,
                Placement& p) {
  if (cores.empty()) {
    p.applied = BindPolicy::none;
    p.reason = "no cores in the topology";
    return;
  }
  p.applied = BindPolicy::core;
  on_core_of(topology, cores, local_rank, p);
  if (auto note = oversubscribed(local_size, static_cast<int>(cores.size()), "cores"); !note.empty()) {
    p.reason = note;
  }
}

void place_auto(const Topology& topology, int local_rank, int local_size, Placement& p) {
  const auto cores = machine_cores(topology);
  if (static_cast<std::size_t>(local_size) >= cores.size())
    return place_core(topology, cores, local_rank, local_size, p);
  p.applied = BindPolicy::none;
  p.reason =
      std::to_string(local_size) + " ranks on " + std::to_string(cores.size()) + " cores: left to the OS scheduler";
}

void place_numa(const Topology& topology, int local_rank, int local_size, Placement& p) {
  int nodes = topology.numa_node_count();
  hwloc_obj_t node = hwloc_get_obj_by_type(topology.get(), HWLOC_OBJ_NUMANODE, static_cast<unsigned>(local_rank % nodes));
  p.applied = BindPolicy::numa;
  p.cpuset = Bitmap(node->cpuset);
  p.numa_node = static_cast<int>(node->os_index);
  (void)local_size;  // several ranks per node is the purpose of this policy, not oversubscription
}

void place_nic(const Topology& topology, const Locality& locality, int local_rank, int local_size, Placement& p) {
  if (!locality.found) {
    place_core(topology, machine_cores(topology), local_rank, local_size, p);
    p.reason = "nic -> core: " + locality.reason + (p.reason.empty() ? "" : "; " + p.reason);
    return;
  }
  auto cores = cores_inside(topology, locality.cpuset.raw());
  if (cores.empty()) {
    place_core(topology, machine_cores(topology), local_rank, local_size, p);
    p.reason = "nic -> core: no cores local to " + locality.device;
    return;
  }
  p.applied = BindPolicy::nic;
  on_core_of(topology, cores, local_rank, p);
  p.reason = oversubscribed(local_size, static_cast<int>(cores.size()), "cores local to " + locality.device);
}

}  // namespace

std::optional<BindPolicy> parse_bind_policy(std::string_view text) {
  for (const auto& [name, policy] : kPolicies) {
    if (name == text) return policy;
  }
  return std::nullopt;
}

std::string_view to_string(BindPolicy policy) {
  for (const auto& [name, value] : kPolicies) {
    if (value == policy) return name;
  }
  return "?";
}

Placement decide_placement(const Topology& topology, BindPolicy policy, int local_rank, int local_size,
                           std::string_view device) {
  Placement p;
  p.requested = policy;
  p.device = std::string(device);
  Locality locality = device_locality(topology, device);
  p.device_numa = locality.first_numa_node();
  if (policy == BindPolicy::none) return p;
  if (local_rank < 0 || local_size < 1 || local_rank >= local_size) {
    p.reason = "bad local rank " + std::to_string(local_rank) + " of " + std::to_string(local_size) +
               ": not binding";
    return p;
  }
  switch (policy) {
    case BindPolicy::core: place_core(topology, machine_cores(topology), local_rank, local_size, p); break;
    case BindPolicy::numa: place_numa(topology, local_rank, local_size, p); break;
    case BindPolicy::nic: place_nic(topology, locality, local_rank, local_size, p); break;
    case BindPolicy::automatic: place_auto(topology, local_rank, local_size, p); break;
    case BindPolicy::none: break;
  }
  return p;
}

}  // namespace rcoll::topology
