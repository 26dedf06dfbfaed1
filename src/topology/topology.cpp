#include "topology/topology.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>

#include "rcoll/errors.hpp"

namespace rcoll::topology {
namespace {

std::string errno_text(int error) { return std::strerror(error); }

// Creates a topology, lets `configure` pick the source, keeps the important
// I/O objects (PCI devices with OS devices, bridges leading to them) and
// loads it. Returns nullptr with errno set on failure.
hwloc_topology_t load(const std::function<int(hwloc_topology_t)>& configure) {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return nullptr;
  std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> owner(topology, hwloc_topology_destroy);
  if (hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0) return nullptr;
  if (configure(topology) != 0) return nullptr;
  if (hwloc_topology_load(topology) != 0) return nullptr;
  return owner.release();
}

}  // namespace

Topology::Topology(hwloc_topology_t topology, bool this_system, std::string source)
    : topology_(topology), this_system_(this_system), source_(std::move(source)) {}

void Topology::Deleter::operator()(hwloc_topology_t topology) const { hwloc_topology_destroy(topology); }
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::~Topology() = default;

Topology Topology::load_this_machine() {
  hwloc_topology_t topology = load([](hwloc_topology_t) { return 0; });
  if (topology == nullptr) {
    throw IoError(-1, -1, "hwloc topology discovery", errno_text(errno));
  }
  return Topology(topology, true, "this machine");
}

Topology Topology::load_xml(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) {
    throw InvalidArgument("hwloc topology file not found: " + path);
  }
  hwloc_topology_t topology = load([&](hwloc_topology_t t) { return hwloc_topology_set_xml(t, path.c_str()); });
  if (topology == nullptr) {
    throw InvalidArgument("not a loadable hwloc XML topology: " + path + " (" + errno_text(errno) + ")");
  }
  return Topology(topology, false, path);
}

int Topology::numa_node_count() const { return hwloc_get_nbobjs_by_type(get(), HWLOC_OBJ_NUMANODE); }

int Topology::core_count() const {
  int cores = hwloc_get_nbobjs_by_type(get(), HWLOC_OBJ_CORE);
  return cores > 0 ? cores : pu_count();
}

int Topology::pu_count() const { return hwloc_get_nbobjs_by_type(get(), HWLOC_OBJ_PU); }

std::vector<unsigned> Topology::numa_nodes() const {
  std::vector<unsigned> nodes;
  for (hwloc_obj_t node = nullptr; (node = hwloc_get_next_obj_by_type(get(), HWLOC_OBJ_NUMANODE, node)) != nullptr;) {
    nodes.push_back(node->os_index);
  }
  return nodes;
}

Bitmap Topology::numa_node_cpuset(unsigned os_index) const {
  hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(get(), os_index);
  return node == nullptr || node->cpuset == nullptr ? Bitmap() : Bitmap(node->cpuset);
}

const Topology& this_machine() {
  static const Topology machine = Topology::load_this_machine();
  return machine;
}

}  // namespace rcoll::topology
