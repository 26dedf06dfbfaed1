// Where a network device sits: the CPUs and NUMA nodes closest to it.
//
// A device is named as the kernel names it: an RDMA device ("mlx5_0",
// "rxe0"; an hwloc OS device of type OpenFabrics) or a network interface
// ("eth0", "ib0"; type network). Its locality is that of its first non-I/O
// ancestor (the package or NUMA-level group its PCI root hangs from).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topology/bitmap.hpp"
#include "topology/topology.hpp"

namespace rcoll::topology {

struct Locality {
  bool found = false;
  // Why nothing was found (or why the locality is the whole machine), e.g.
  // "no hwloc locality for rxe0: not in the topology (a virtual device
  // such as Soft-RoCE, or no PCI information)". Empty when found precisely.
  std::string reason;
  std::string device;              // the name asked for
  std::string kind;                // "openfabrics" or "network" when found
  Bitmap cpuset;                   // PUs local to the device
  Bitmap nodeset;                  // NUMA nodes local to the device
  std::vector<unsigned> numa_nodes;  // the OS indexes in `nodeset`, ascending

  // The first local NUMA node, -1 when not found.
  int first_numa_node() const { return numa_nodes.empty() ? -1 : static_cast<int>(numa_nodes.front()); }
};

// Never throws for a missing or virtual device: returns found == false and
// a reason instead.
Locality device_locality(const Topology& topology, std::string_view device);

// The OS devices of type OpenFabrics / network, in topology order (used by
// reports and tests).
std::vector<std::string> rdma_device_names(const Topology& topology);
std::vector<std::string> network_device_names(const Topology& topology);

// The device a rank that named none most likely uses: the machine's only
// RDMA device, else its only network interface; "" when there are several
// or none (which one the transport will pick is not known here).
std::string only_device(const Topology& topology);

}  // namespace rcoll::topology
