// An hwloc topology, loaded with I/O objects (PCI devices and their OS
// devices: NICs, RDMA devices) so that device locality can be found.
//
// this_machine() is loaded once per process, on first use; tests load XML
// descriptions of other machines through the same loader.
#pragma once

#include <hwloc.h>

#include <memory>
#include <string>
#include <vector>

#include "topology/bitmap.hpp"

namespace rcoll::topology {

class Topology {
 public:
  // Throws rcoll::IoError when hwloc cannot discover this machine.
  static Topology load_this_machine();
  // Throws rcoll::InvalidArgument when the file is missing or not hwloc XML.
  static Topology load_xml(const std::string& path);

  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  ~Topology();

  hwloc_topology_t get() const { return topology_.get(); }
  // True when the topology describes the running machine, so binding and
  // memory placement calls act on it (false for XML descriptions).
  bool is_this_system() const { return this_system_; }
  // "this machine" or the XML path.
  const std::string& source() const { return source_; }

  int numa_node_count() const;
  int core_count() const;   // Core objects; PUs when hwloc found no cores
  int pu_count() const;
  // OS indexes of the NUMA nodes, in logical order.
  std::vector<unsigned> numa_nodes() const;
  // The PUs local to NUMA node `os_index`; empty when there is no such node.
  Bitmap numa_node_cpuset(unsigned os_index) const;

 private:
  struct Deleter {
    void operator()(hwloc_topology_t topology) const;  // out of line: callers need not link hwloc
  };
  Topology(hwloc_topology_t topology, bool this_system, std::string source);

  std::unique_ptr<hwloc_topology, Deleter> topology_;
  bool this_system_;
  std::string source_;
};

// The running machine's topology, loaded on first call (thread-safe).
// Throws rcoll::IoError when hwloc cannot discover it.
const Topology& this_machine();

}  // namespace rcoll::topology
