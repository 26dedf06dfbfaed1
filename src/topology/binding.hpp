// Binding threads and processes of this machine to CPUs.
//
// Failures are returned, not thrown: placement must never fail a job.
#pragma once

#include <string>

#include "topology/bitmap.hpp"
#include "topology/topology.hpp"

namespace rcoll::topology {

struct BindResult {
  bool ok = false;
  std::string error;  // "hwloc_set_cpubind(0-3): Invalid argument" when !ok
};

// Binds the calling thread to `cpuset` (strictly: it may run only there).
// `topology` must describe this machine (is_this_system()).
BindResult bind_this_thread(const Topology& topology, const Bitmap& cpuset);
// Binds the whole process, every thread it has now; threads created later
// inherit the binding of the thread that creates them.
BindResult bind_this_process(const Topology& topology, const Bitmap& cpuset);

// The CPUs the calling thread may run on; empty if the query failed.
Bitmap this_thread_binding(const Topology& topology);
// The CPUs of the process as a whole (union of its threads' bindings).
Bitmap this_process_binding(const Topology& topology);

}  // namespace rcoll::topology
