#include "topology/apply.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "common/log.hpp"
#include "topology/binding.hpp"

namespace rcoll::topology {
namespace {

std::string numa_text(int node) { return node < 0 ? "any" : "numa" + std::to_string(node); }

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return false;
  std::string_view text(value);
  return text == "1" || text == "true" || text == "yes" || text == "on";
}

BindPolicy env_policy() {
  const char* value = std::getenv("RCOLL_BIND");
  if (value == nullptr || *value == '\0') return BindPolicy::none;
  if (auto policy = parse_bind_policy(value)) return *policy;
  log::warn("RCOLL_BIND={} is not one of none|core|numa|nic; not binding", value);
  return BindPolicy::none;
}

}  // namespace

std::string PlacementReport::summary(int rank, int local_rank, int local_size) const {
  const Placement& p = placement;
  std::string line = "rank " + std::to_string(rank) + " (local " + std::to_string(local_rank) + "/" +
                     std::to_string(local_size) + "): bind=" + std::string(to_string(p.applied));
  line += " cpuset=" + (binding.empty() ? std::string("?") : binding.to_list());
  line += " mem=" + numa_text(p.numa_node);
  if (!p.device.empty()) {
    line += " device=" + p.device + " (" + (p.device_numa < 0 ? std::string("numa unknown") : numa_text(p.device_numa)) + ")";
  }
  if (p.applied != p.requested || !p.reason.empty()) line += "; requested " + std::string(to_string(p.requested));
  if (!p.reason.empty()) line += ": " + p.reason;
  if (!bind_error.empty()) line += "; binding failed: " + bind_error;
  return line;
}

PlacementReport apply_placement(BindPolicy policy, int local_rank, int local_size, std::string_view device_name) {
  PlacementReport report;
  report.placement.requested = policy;
  const Topology* topology = nullptr;
  try {
    topology = &this_machine();
  } catch (const std::exception& error) {
    report.placement.reason = std::string("no topology: ") + error.what();
    return report;
  }
  report.placement = decide_placement(*topology, policy, local_rank, local_size, device_name);
  if (!report.placement.cpuset.empty()) {
    BindResult result = bind_this_process(*topology, report.placement.cpuset);
    report.bound = result.ok;
    report.bind_error = result.error;
    if (!result.ok) log::warn("placement: {}; running unbound", result.error);
  }
  report.binding = this_process_binding(*topology);
  if (!report.placement.reason.empty()) log::info("placement: {}", report.placement.reason);
  return report;
}

PlacementReport apply_placement_from_env(int rank, int local_rank, int local_size, std::string_view device_name) {
  PlacementReport report = apply_placement(env_policy(), local_rank, local_size, device_name);
  if (env_flag("RCOLL_REPORT_BINDINGS")) {
    std::fprintf(stderr, "rcoll bindings: %s\n", report.summary(rank, local_rank, local_size).c_str());
    std::fflush(stderr);
  }
  return report;
}

}  // namespace rcoll::topology
