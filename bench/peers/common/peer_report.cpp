#include "common/peer_report.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/json.hpp"
#include "common/peer_layout.hpp"
#include "common/size_result.hpp"

namespace rcoll::peers {
namespace {

using bench::json_string;

std::string json_meta(const PeerRunInfo& info) {
  const PeerOptions& o = info.options;
  std::string meta = "{\"op\": " + json_string(to_string(o.op));
  meta += ", \"ranks\": " + std::to_string(info.ranks);
  meta += ", \"transport\": " + json_string(info.transport);
  meta += ", \"dtype\": \"float32\", \"redop\": " + json_string(is_reduction(o.op) ? "sum" : "-");
  meta += ", \"algo\": \"library default\", \"root\": " + std::to_string(o.root);
  meta += ", \"inplace\": " + std::string(o.inplace ? "true" : "false");
  meta += ", \"check\": " + std::string(o.check ? "true" : "false");
  meta += ", \"iters\": " + std::to_string(o.iters) + ", \"warmup\": " + std::to_string(o.warmup);
  meta += ", \"host\": " + json_string(info.host) + ", \"library\": " + json_string(info.library);
  return meta + ", \"version\": " + json_string(info.version) + "}";
}

}  // namespace

void print_peer_header(std::FILE* out, const PeerRunInfo& info) {
  const PeerOptions& o = info.options;
  const std::string placement = takes_root(o.op) ? "root " + std::to_string(o.root)
                                                  : o.inplace ? "in-place" : "out-of-place";
  std::fprintf(out, "# %s: op %s, ranks %d, transport %s, dtype float32, iters %d, warmup %d, %s, check %s\n",
               info.library.c_str(), to_string(o.op), info.ranks, info.transport.c_str(), o.iters, o.warmup,
               placement.c_str(), o.check ? "on" : "off");
  std::fprintf(out, "# %s\n", info.version.c_str());
  std::fprintf(out, "#%12s %12s %12s %11s %11s %7s\n", "bytes", "count", "time_us", "algbw_GBps", "busbw_GBps",
               "errors");
  std::fflush(out);
}

void print_peer_row(std::FILE* out, const PeerRunInfo&, const PeerResult& r) {
  std::fprintf(out, " %12zu %12zu %12.2f %11.3f %11.3f %7llu\n", r.bytes, r.count, r.latency.median_s * 1e6,
               r.algbw_gbps, r.busbw_gbps, static_cast<unsigned long long>(r.errors));
  std::fflush(out);
}

void print_peer_footer(std::FILE* out, const std::vector<PeerResult>& results) {
  unsigned long long errors = 0;
  for (const PeerResult& r : results) errors += r.errors;
  std::fprintf(out, "# errors: %llu\n", errors);
  std::fflush(out);
}

void write_peer_json(const std::string& path, const PeerRunInfo& info, const std::vector<PeerResult>& results) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot open '" + path + "' for writing: " + std::strerror(errno));
  file << "{\n  \"meta\": " << json_meta(info) << ",\n  \"results\": [";
  for (std::size_t i = 0; i < results.size(); ++i)
    file << (i ? ",\n    " : "\n    ") << json_result(results[i]);
  file << "\n  ]\n}\n";
  file.close();
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
}

}  // namespace rcoll::peers
