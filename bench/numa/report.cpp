#include "report.hpp"

#include <fstream>
#include <iostream>
#include <stdexcept>

#include "common/json.hpp"

namespace rcoll::bench {
namespace {

double ratio(double value, double reference) { return reference > 0 ? value / reference : 0.0; }

std::string json_row(const NodeResult& r, const NodeResult& local) {
  char line[512];
  std::snprintf(line, sizeof line,
                "{\"node\": %d, \"where\": \"%s\", \"bound\": %s, \"pages_on\": %s, "
                "\"copy_GBps_median\": %.3f, \"copy_s_min\": %.6f, \"copy_s_median\": %.6f, "
                "\"reduce_GBps_median\": %.3f, \"reduce_s_min\": %.6f, \"reduce_s_median\": %.6f, "
                "\"copy_vs_local\": %.3f, \"reduce_vs_local\": %.3f, \"errors\": %zu",
                r.node, r.local ? "local" : "remote", r.bound ? "true" : "false", json_string(r.pages_on).c_str(),
                r.copy_gbps, r.copy.min_s, r.copy.median_s, r.reduce_gbps, r.reduce.min_s, r.reduce.median_s,
                ratio(r.copy_gbps, local.copy_gbps), ratio(r.reduce_gbps, local.reduce_gbps), r.errors);
  std::string row = line;
  if (!r.bound) row += ", \"fallback\": " + json_string(r.fallback);
  return row + "}";
}

std::string json_text(const NumaRun& run) {
  const NumaOptions& o = run.options;
  std::string text = "{\n  \"benchmark\": \"rcoll-numa-bench\", \"host\": " + json_string(run.host);
  text += ", \"numa_nodes\": " + std::to_string(run.numa_nodes) + ", \"cpu_node\": " + std::to_string(run.cpu_node);
  text += ", \"cpus\": " + json_string(run.cpus) + ", \"bind_problem\": " + json_string(run.bind_problem);
  text += ",\n  \"bytes\": " + std::to_string(o.bytes) + ", \"reps\": " + std::to_string(o.reps) +
          ", \"warmup\": " + std::to_string(o.warmup) + ", \"kernel\": \"float32 sum\"";
  text += ", \"remote_skipped\": " + std::string(run.remote_skipped ? "true" : "false");
  text += ",\n  \"rows\": [";
  for (std::size_t i = 0; i < run.rows.size(); ++i) text += (i ? ",\n    " : "\n    ") + json_row(run.rows[i], run.rows[0]);
  return text + "\n  ]\n}\n";
}

}  // namespace

void print_table(std::FILE* out, const NumaRun& run) {
  const NumaOptions& o = run.options;
  std::fprintf(out, "# rcoll-numa-bench: host %s, %d NUMA node(s), CPUs %s (node %d)%s%s, %zu-byte buffers, "
               "%d reps after %d warmup, medians\n",
               run.host.c_str(), run.numa_nodes, run.cpus.c_str(), run.cpu_node,
               run.bind_problem.empty() ? "" : ", NOT BOUND: ", run.bind_problem.c_str(), o.bytes, o.reps, o.warmup);
  std::fprintf(out, "# %4s %-7s %-6s %-8s %11s %13s %14s %16s %7s\n", "node", "where", "bound", "pages_on",
               "copy_GBps", "reduce_GBps", "copy_vs_local", "reduce_vs_local", "errors");
  const NodeResult& local = run.rows.front();
  for (const NodeResult& r : run.rows) {
    std::fprintf(out, "  %4d %-7s %-6s %-8s %11.2f %13.2f %14.2f %16.2f %7zu\n", r.node, r.local ? "local" : "remote",
                 r.bound ? "yes" : "no", r.pages_on.empty() ? "?" : r.pages_on.c_str(), r.copy_gbps, r.reduce_gbps,
                 ratio(r.copy_gbps, local.copy_gbps), ratio(r.reduce_gbps, local.reduce_gbps), r.errors);
    if (!r.bound) std::fprintf(out, "#   node %d not bound: %s\n", r.node, r.fallback.c_str());
  }
  if (run.remote_skipped) {
    std::fprintf(out, "# this machine has one NUMA node: the remote comparison is skipped (local figures only)\n");
  }
  std::fflush(out);
}

void write_json(const std::string& path, const NumaRun& run) {
  if (path == "-") {
    std::cout << json_text(run) << std::flush;
    return;
  }
  std::ofstream file(path);
  file << json_text(run);
  if (!file) throw std::runtime_error("cannot write " + path);
}

}  // namespace rcoll::bench
