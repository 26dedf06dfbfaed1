#include "topology/apply.hpp"

#include <cstdio>
#include <exception>

#include "common/log.hpp"
#include "topology/binding.hpp"
#include "topology/locality.hpp"
#include "topology/numa_alloc.hpp"

namespace rcoll::topology {
namespace {

std::string numa_text(int node) { return node < 0 ? "any" : "numa" + std::to_string(node); }

}  // namespace

std::string PlacementReport::summary(int rank, int local_rank, int local_size) const {
  const Placement& p = placement;
  std::string line = "rank " + std::to_string(rank) + " (local " + std::to_string(local_rank) + "/" +
                     std::to_string(local_size) + "): bind=" + std::string(to_string(p.applied));
  line += " cpuset=" + (binding.empty() ? std::string("?") : binding.to_list());
  line += " mem=" + numa_text(memory.node);
  if (!p.device.empty()) {
    line += " device=" + p.device + " (" + (p.device_numa < 0 ? std::string("numa unknown") : numa_text(p.device_numa)) + ")";
  }
  if (p.applied != p.requested || !p.reason.empty()) line += "; requested " + std::string(to_string(p.requested));
  if (!p.reason.empty()) line += ": " + p.reason;
  if (!bind_error.empty()) line += "; binding failed: " + bind_error;
  return line;
}

std::string PlacementReport::log_line() const {
  const Placement& p = placement;
  std::string line = "placement: bind=" + std::string(to_string(p.applied));
  line += " cpus " + (binding.empty() ? std::string("unknown") : binding.to_list()) + (bound ? "" : " (unbound)");
  line += memory.node < 0 ? ", memory default" : ", memory node " + std::to_string(memory.node);
  if (!memory.why.empty()) line += " (" + memory.why + ")";
  if (!p.device.empty()) {
    line += ", device " + p.device + " (" + (p.device_numa < 0 ? std::string("numa unknown") : numa_text(p.device_numa)) +
            (device_guessed ? ", the only one: none named" : "") + ")";
  } else {
    line += ", no device named";
  }
  if (!locality_reason.empty() && p.reason.find(locality_reason) == std::string::npos) line += "; " + locality_reason;
  if (!p.reason.empty()) {
    line += (p.requested == BindPolicy::automatic ? "; auto: " : "; fallback: ") + p.reason;
  } else if (p.applied != p.requested) {
    line += "; requested " + std::string(to_string(p.requested));
  }
  if (!bind_error.empty()) line += "; binding failed: " + bind_error;
  return line;
}

namespace {

// Decides, binds and chooses the memory node; `report` is filled in place.
void place(const Topology& topology, BindPolicy policy, int local_rank, int local_size,
           std::string_view device_name, PlacementReport& report) {
  std::string device(device_name);
  if (device.empty()) {
    device = only_device(topology);
    report.device_guessed = !device.empty();
  }
  report.placement = decide_placement(topology, policy, local_rank, local_size, device);
  if (!device.empty()) report.locality_reason = device_locality(topology, device).reason;
  if (!report.placement.cpuset.empty()) {
    BindResult result = bind_this_process(topology, report.placement.cpuset);
    report.bound = result.ok;
    report.bind_error = result.error;
    if (!result.ok) log::warn("placement: {}; running unbound", result.error);
  }
  report.binding = this_process_binding(topology);
  report.memory = choose_memory_node(topology, report.placement, report.bound, can_bind_memory(topology));
}

}  // namespace

PlacementReport apply_placement(BindPolicy policy, int local_rank, int local_size, std::string_view device_name) {
  PlacementReport report;
  report.placement.requested = policy;
  report.placement.device = std::string(device_name);
  try {
    place(this_machine(), policy, local_rank, local_size, device_name, report);
  } catch (const std::exception& error) {
    report.placement.reason = std::string("no placement: ") + error.what();
    report.memory = {-1, "no topology: default allocation"};
  }
  set_process_memory_node(report.memory.node);
  log::info("{}", report.log_line());
  return report;
}

void print_bindings(const PlacementReport& report, int rank, int local_rank, int local_size) {
  std::fprintf(stderr, "rcoll bindings: %s\n", report.summary(rank, local_rank, local_size).c_str());
  std::fflush(stderr);
}

}  // namespace rcoll::topology
