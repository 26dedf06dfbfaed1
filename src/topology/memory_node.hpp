// The NUMA node this process keeps its communication memory on: every
// buffer the library owns (PlacedBuffer) and rcoll::alloc use it.
//
// It is chosen once, when the communicator applies placement
// (apply_placement), and is -1 ("no preference": default, first-touch
// placement) before that, in processes that never apply placement (e.g.
// Comm::create from tests), and when there is nothing to choose.
#pragma once

#include <string>

#include "topology/placement.hpp"
#include "topology/topology.hpp"

namespace rcoll::topology {

struct MemoryChoice {
  int node = -1;    // OS index of the node; -1: default placement
  std::string why;  // "local to mlx5_0", "one NUMA node: default allocation", ...
};

// Pure. The node, in this order of preference:
//  1. none when the machine has a single NUMA node (nothing to choose) or
//     `can_bind_memory` is false (the choice could not be applied);
//  2. the device's NUMA node, the DMA target: the node of the bound CPUs
//     when it is one of the device's nodes, else the device's first node;
//  3. without a device locality, the node of the bound CPUs (`cpu_bound`:
//     the binding decided in `placement` took effect);
//  4. otherwise none (default placement).
MemoryChoice choose_memory_node(const Topology& topology, const Placement& placement, bool cpu_bound,
                                bool can_bind_memory);

// The process-wide choice. Thread-safe (an atomic); -1 until set.
int process_memory_node() noexcept;
void set_process_memory_node(int node) noexcept;

}  // namespace rcoll::topology
