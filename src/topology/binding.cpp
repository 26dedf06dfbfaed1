#include "topology/binding.hpp"

#include <cerrno>
#include <cstring>

namespace rcoll::topology {
namespace {

BindResult bind(const Topology& topology, const Bitmap& cpuset, int flags) {
  if (!topology.is_this_system()) {
    return {false, "topology " + topology.source() + " does not describe this machine"};
  }
  if (cpuset.empty()) return {false, "empty cpuset"};
  if (hwloc_set_cpubind(topology.get(), cpuset.raw(), flags | HWLOC_CPUBIND_STRICT) != 0) {
    int error = errno;
    return {false, "hwloc_set_cpubind(" + cpuset.to_list() + "): " + std::strerror(error)};
  }
  return {true, {}};
}

Bitmap binding(const Topology& topology, int flags) {
  Bitmap result;
  if (hwloc_get_cpubind(topology.get(), result.raw(), flags) != 0) return Bitmap();
  return result;
}

}  // namespace

BindResult bind_this_thread(const Topology& topology, const Bitmap& cpuset) {
  return bind(topology, cpuset, HWLOC_CPUBIND_THREAD);
}

BindResult bind_this_process(const Topology& topology, const Bitmap& cpuset) {
  return bind(topology, cpuset, HWLOC_CPUBIND_PROCESS);
}

Bitmap this_thread_binding(const Topology& topology) { return binding(topology, HWLOC_CPUBIND_THREAD); }

Bitmap this_process_binding(const Topology& topology) { return binding(topology, HWLOC_CPUBIND_PROCESS); }

}  // namespace rcoll::topology
