#include "topology/locality.hpp"

namespace rcoll::topology {
namespace {

bool is_nic(hwloc_obj_t osdev) {
  auto type = osdev->attr->osdev.type;
  return type == HWLOC_OBJ_OSDEV_OPENFABRICS || type == HWLOC_OBJ_OSDEV_NETWORK;
}

// The OpenFabrics device of that name first, else the network one.
hwloc_obj_t find_nic(const Topology& topology, std::string_view name) {
  hwloc_obj_t network = nullptr;
  for (hwloc_obj_t obj = nullptr; (obj = hwloc_get_next_osdev(topology.get(), obj)) != nullptr;) {
    if (obj->name == nullptr || name != obj->name || !is_nic(obj)) continue;
    if (obj->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) return obj;
    if (network == nullptr) network = obj;
  }
  return network;
}

bool has_pci_devices(const Topology& topology) {
  return hwloc_get_next_pcidev(topology.get(), nullptr) != nullptr;
}

std::vector<std::string> names_of(const Topology& topology, hwloc_obj_osdev_type_t type) {
  std::vector<std::string> names;
  for (hwloc_obj_t obj = nullptr; (obj = hwloc_get_next_osdev(topology.get(), obj)) != nullptr;) {
    if (obj->attr->osdev.type == type && obj->name != nullptr) names.emplace_back(obj->name);
  }
  return names;
}

Locality not_found(std::string device, const std::string& why) {
  Locality result;
  result.reason = "no hwloc locality for " + device + ": " + why;
  result.device = std::move(device);
  return result;
}

}  // namespace

Locality device_locality(const Topology& topology, std::string_view device) {
  std::string name(device);
  if (name.empty()) return not_found("(no device)", "no device name given");
  hwloc_obj_t osdev = find_nic(topology, name);
  if (osdev == nullptr) {
    return not_found(name, has_pci_devices(topology)
                               ? "not in the topology (a virtual device such as Soft-RoCE, or not a NIC)"
                               : "the topology has no PCI information");
  }
  hwloc_obj_t anchor = hwloc_get_non_io_ancestor_obj(topology.get(), osdev);
  if (anchor == nullptr || anchor->cpuset == nullptr || anchor->nodeset == nullptr) {
    return not_found(name, "no non-I/O ancestor with a cpuset");
  }
  Locality result;
  result.found = true;
  result.device = name;
  result.kind = osdev->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS ? "openfabrics" : "network";
  result.cpuset = Bitmap(anchor->cpuset);
  result.nodeset = Bitmap(anchor->nodeset);
  unsigned node = 0;
  hwloc_bitmap_foreach_begin(node, anchor->nodeset) { result.numa_nodes.push_back(node); }
  hwloc_bitmap_foreach_end();
  if (anchor->type == HWLOC_OBJ_MACHINE && topology.numa_node_count() > 1) {
    result.reason = name + " hangs from the whole machine: no NUMA node is closer than another";
  }
  return result;
}

std::vector<std::string> rdma_device_names(const Topology& topology) {
  return names_of(topology, HWLOC_OBJ_OSDEV_OPENFABRICS);
}

std::vector<std::string> network_device_names(const Topology& topology) {
  return names_of(topology, HWLOC_OBJ_OSDEV_NETWORK);
}

std::string only_device(const Topology& topology) {
  std::vector<std::string> rdma = rdma_device_names(topology);
  if (rdma.size() == 1) return rdma.front();
  if (!rdma.empty()) return {};
  std::vector<std::string> network = network_device_names(topology);
  return network.size() == 1 ? network.front() : std::string();
}

}  // namespace rcoll::topology
