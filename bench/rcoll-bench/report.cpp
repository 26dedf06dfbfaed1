#include "report.hpp"

#include <algorithm>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/json.hpp"
#include "common/size_result.hpp"

namespace rcoll::bench {
namespace {

std::string type_column(const RunInfo& info) {
  return info.options.op == BenchOp::barrier ? "-" : std::string(to_string(info.options.dtype));
}

std::string redop_column(const RunInfo& info) {
  return takes_redop(info.options.op) ? std::string(to_string(info.options.redop)) : "-";
}

std::string json_meta(const RunInfo& info) {
  const BenchOptions& o = info.options;
  std::string meta = "{\"op\": " + json_string(std::string(to_string(o.op)));
  meta += ", \"ranks\": " + std::to_string(info.ranks);
  meta += ", \"transport\": " + json_string(info.transport);
  meta += ", \"dtype\": " + json_string(type_column(info));
  meta += ", \"redop\": " + json_string(redop_column(info));
  meta += ", \"algo\": " + json_string(info.algo);
  meta += ", \"root\": " + std::to_string(o.root);
  meta += ", \"inplace\": " + std::string(o.inplace ? "true" : "false");
  meta += ", \"check\": " + std::string(o.check ? "true" : "false");
  meta += ", \"iters\": " + std::to_string(o.iters);
  meta += ", \"warmup\": " + std::to_string(o.warmup);
  return meta + ", \"host\": " + json_string(info.host) + "}";
}

}  // namespace

void print_plan(std::FILE* out, const std::string& plan) {
  std::size_t start = 0;
  while (start <= plan.size()) {
    const std::size_t end = std::min(plan.find('\n', start), plan.size());
    std::fprintf(out, "# %s\n", plan.substr(start, end - start).c_str());
    start = end + 1;
  }
}

void print_header(std::FILE* out, const RunInfo& info) {
  const BenchOptions& o = info.options;
  std::fprintf(out, "# rcoll-bench: op %s, ranks %d, transport %s, dtype %s, iters %d, warmup %d",
               std::string(to_string(o.op)).c_str(), info.ranks, info.transport.c_str(), type_column(info).c_str(),
               o.iters, o.warmup);
  if (has_in_place_form(o.op)) std::fprintf(out, ", %s", o.inplace ? "in-place" : "out-of-place");
  if (takes_root(o.op)) std::fprintf(out, ", root %d", o.root);
  std::fprintf(out, ", check %s, host %s\n", o.check ? "on" : "off", info.host.c_str());
  std::fprintf(out, "#%12s %12s %9s %6s %17s %12s %11s %11s %7s\n", "bytes", "count", "type", "redop", "algo",
               "time_us", "algbw_GBps", "busbw_GBps", "errors");
  std::fflush(out);
}

void print_row(std::FILE* out, const RunInfo& info, const SizeResult& r) {
  std::fprintf(out, " %12zu %12zu %9s %6s %17s %12.2f %11.3f %11.3f %7llu\n", r.bytes, r.count,
               type_column(info).c_str(), redop_column(info).c_str(), info.algo.c_str(), r.latency.median_s * 1e6,
               r.algbw_gbps, r.busbw_gbps, static_cast<unsigned long long>(r.errors));
  std::fflush(out);
}

void print_footer(std::FILE* out, const std::vector<SizeResult>& results) {
  double busbw = 0;
  unsigned long long errors = 0;
  for (const SizeResult& r : results) {
    busbw += r.busbw_gbps;
    errors += r.errors;
  }
  const double avg = results.empty() ? 0.0 : busbw / static_cast<double>(results.size());
  std::fprintf(out, "# avg busbw: %.3f GB/s\n# errors: %llu\n", avg, errors);
  std::fflush(out);
}

void write_json(const std::string& path, const RunInfo& info, const std::vector<SizeResult>& results) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot open '" + path + "' for writing: " + std::strerror(errno));
  file << "{\n  \"meta\": " << json_meta(info) << ",\n  \"results\": [";
  for (std::size_t i = 0; i < results.size(); ++i)
    file << (i ? ",\n    " : "\n    ") << json_result(results[i]);
  file << "\n  ]\n}\n";
  file.close();
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
}

}  // namespace rcoll::bench
