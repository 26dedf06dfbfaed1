// One row of rcoll-numa-bench: copy and reduction bandwidth of two buffers
// strictly bound to one NUMA node, measured by the calling thread (which
// main() has bound to the CPUs of the local node).
#pragma once

#include <cstddef>
#include <string>

#include "common/stats.hpp"
#include "options.hpp"
#include "topology/topology.hpp"

namespace rcoll::bench {

struct NodeResult {
  int node = -1;
  bool local = false;        // the node of the CPUs doing the work
  bool bound = false;        // the buffers were bound to `node` (else: why not)
  std::string fallback;      // NumaBuffer's reason when !bound
  std::string pages_on;      // where hwloc says the pages are ("" : unknown)
  LatencyStats copy;         // seconds per memcpy of `bytes`
  LatencyStats reduce;       // seconds per float32 sum of `bytes`
  double copy_gbps = 0;      // bytes / median copy time
  double reduce_gbps = 0;    // bytes / median reduce time
  std::size_t errors = 0;    // wrong values found after the runs
};

NodeResult measure_node(const topology::Topology& machine, const NumaOptions& options, int node, bool local);

}  // namespace rcoll::bench
