// Applying a placement to this process: the one call the communicator makes.
//
// rcoll-run passes RCOLL_BIND=none|core|numa|nic|auto and RCOLL_REPORT_BINDINGS=1
// to the ranks; Comm::from_env reads them (comm/environment.hpp) and calls
// apply_placement() before the library starts any thread of its own, so
// that those threads inherit the binding. Placement never fails a job: every problem
// becomes a fallback and a reason in the report.
#pragma once

#include <string>
#include <string_view>

#include "topology/memory_node.hpp"
#include "topology/placement.hpp"

namespace rcoll::topology {

struct PlacementReport {
  Placement placement;
  bool bound = false;        // the process binding was set as decided
  std::string bind_error;    // why not, when a binding was decided but failed
  Bitmap binding;            // the process binding after the call (queried)
  MemoryChoice memory;       // the node library buffers and rcoll::alloc use
  bool device_guessed = false;  // no device was named: placement.device is only_device()
  std::string locality_reason;  // why the device has no (precise) locality; "" when it has

  // For --report-bindings, e.g. "rank 3 (local 1/2): bind=nic cpuset=5
  // mem=numa1 device=mlx5_0 (numa1)", followed by "; requested nic: ..."
  // after a fallback. mem= is memory.node ("any": default placement).
  std::string summary(int rank, int local_rank, int local_size) const;
  // The info-level log line, e.g. "placement: bind=none cpus 0-1
  // (unbound), memory default (one NUMA node: default allocation), device
  // rxe0 (numa unknown); no hwloc locality for rxe0: ...", with the
  // fallback reason when there was one.
  std::string log_line() const;
};

// Decides on this_machine() (for the device named or, when none is, the
// machine's only RDMA device or network interface), binds the whole
// process to the decided cpuset (nothing is bound for none), chooses the
// memory node and makes it the process's (set_process_memory_node), and
// logs log_line() at info level.
// Never throws for placement reasons; a topology that cannot be loaded is
// reported as "no placement" (memory node -1).
PlacementReport apply_placement(BindPolicy policy, int local_rank, int local_size,
                                std::string_view device_name = {});

// Prints "rcoll bindings: <summary>" on stderr (rcoll-run --report-bindings).
void print_bindings(const PlacementReport& report, int rank, int local_rank, int local_size);

}  // namespace rcoll::topology
