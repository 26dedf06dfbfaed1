// rcoll-numa-bench: what NUMA placement is worth on this machine. The
// measuring thread is bound to the CPUs of one node; buffers strictly bound
// to each node in turn are copied (memcpy) and reduced (rcoll's float32 sum
// kernel), so the local row is what rcoll's NIC-local buffers get and the
// remote rows what they would pay on the wrong socket. One process, no
// launcher. Exit 0 on success (including a one-node machine, where the
// remote comparison is skipped), 1 when a kernel produced wrong values or
// the machine could not be measured, 2 for a bad command line.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "measure.hpp"
#include "options.hpp"
#include "report.hpp"
#include "topology/binding.hpp"
#include "topology/topology.hpp"

namespace rcoll::bench {
namespace {

// The node of the first CPU this thread may run on, -1 if none matches.
int node_of_first_cpu(const topology::Topology& machine) {
  topology::Bitmap allowed = topology::this_thread_binding(machine);
  for (unsigned node : machine.numa_nodes()) {
    if (!allowed.empty() && machine.numa_node_cpuset(node).contains(static_cast<unsigned>(allowed.first()))) {
      return static_cast<int>(node);
    }
  }
  return machine.numa_nodes().empty() ? -1 : static_cast<int>(machine.numa_nodes().front());
}

NumaRun measure(const NumaOptions& options) {
  const topology::Topology& machine = topology::this_machine();
  NumaRun run;
  run.options = options;
  run.host = host_name();
  run.numa_nodes = machine.numa_node_count();
  run.cpu_node = options.cpu_node >= 0 ? options.cpu_node : node_of_first_cpu(machine);
  topology::Bitmap cpus = machine.numa_node_cpuset(static_cast<unsigned>(run.cpu_node));
  if (cpus.empty()) throw std::runtime_error("no NUMA node " + std::to_string(run.cpu_node) + " with CPUs");
  topology::BindResult bound = topology::bind_this_thread(machine, cpus);
  run.bind_problem = bound.error;
  run.cpus = topology::this_thread_binding(machine).to_list();
  run.rows.push_back(measure_node(machine, options, run.cpu_node, true));
  for (unsigned node : machine.numa_nodes()) {
    if (static_cast<int>(node) != run.cpu_node) run.rows.push_back(measure_node(machine, options, static_cast<int>(node), false));
  }
  run.remote_skipped = run.rows.size() == 1;
  return run;
}

}  // namespace
}  // namespace rcoll::bench

int main(int argc, char** argv) {
  using namespace rcoll::bench;
  NumaOptions options;
  try {
    options = parse_numa_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rcoll-numa-bench: %s\n%s", e.what(), numa_usage_text());
    return 2;
  }
  if (options.help) {
    std::fputs(numa_usage_text(), stdout);
    return 0;
  }
  try {
    NumaRun run = measure(options);
    print_table(stdout, run);
    if (!options.json_path.empty()) write_json(options.json_path, run);
    for (const NodeResult& row : run.rows) {
      if (row.errors != 0) return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rcoll-numa-bench: %s\n", e.what());
    return 1;
  }
}
