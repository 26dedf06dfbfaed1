// Pure placement decisions: which CPUs a rank binds to and which NUMA node
// holds its memory, given a topology, a policy and the rank's place among
// the ranks of its machine. Nothing here binds anything (see apply.hpp).
//
// Placement never fails a job: when a policy cannot be honoured the
// decision falls back (nic -> core; anything -> none) and says why.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "topology/bitmap.hpp"
#include "topology/topology.hpp"

namespace rcoll::topology {

enum class BindPolicy {
  none,  // leave the rank where the OS puts it
  core,  // local rank r on core r mod cores (round-robin over all cores)
  numa,  // local rank r on every CPU of NUMA node r mod nodes
  nic,   // pack ranks on the cores of the device's NUMA node(s), wrapping
  // `core` when the machine's ranks fill its cores (local_size >= cores),
  // else `none`. With no core to spare the OS scheduler at times stacks two
  // busy ranks on one core while another idles (docs/results/
  // PERFORMANCE_LOG.md, "Placement, early allgather receives, ..."); with
  // cores to spare it balances them well, and leaving ranks
  // unbound keeps two jobs on one machine from pinning onto the same cores.
  automatic,
};

// "none" | "core" | "numa" | "nic" | "auto"; std::nullopt for anything else.
std::optional<BindPolicy> parse_bind_policy(std::string_view text);
std::string_view to_string(BindPolicy policy);

struct Placement {
  BindPolicy requested = BindPolicy::none;
  BindPolicy applied = BindPolicy::none;  // differs from requested after a fallback
  Bitmap cpuset;         // PUs to bind to; empty for none
  int numa_node = -1;    // OS index of the node for the rank's memory; -1: no preference
  std::string device;    // the device asked for ("" if none)
  int device_numa = -1;  // first NUMA node local to the device; -1: unknown
  // Why the applied policy or the result differs from what was asked
  // (fallback, oversubscription); empty when placement went as asked.
  std::string reason;
};

// Contract: 0 <= local_rank < local_size (otherwise falls back to none with
// a reason). `device` is only used by BindPolicy::nic, but is reported
// (with its NUMA node) whatever the policy.
Placement decide_placement(const Topology& topology, BindPolicy policy, int local_rank,
                           int local_size, std::string_view device = {});

}  // namespace rcoll::topology
