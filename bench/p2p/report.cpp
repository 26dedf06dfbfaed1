#include "report.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/json.hpp"

namespace rcoll::bench {
namespace {

std::string json_meta(const P2PRunInfo& info) {
  const P2POptions& o = info.options;
  std::string meta = "{\"test\": " + json_string(std::string(to_string(o.test)));
  meta += ", \"ranks\": 2, \"transport\": " + json_string(info.transport);
  meta += ", \"iters\": " + std::to_string(o.iterations());
  meta += ", \"warmup\": " + std::to_string(o.warmups());
  if (o.test == P2PTest::bw) meta += ", \"window\": " + std::to_string(o.window);
  meta += ", \"check\": " + std::string(o.check ? "true" : "false");
  return meta + ", \"host\": " + json_string(info.host) + "}";
}

std::string json_row(const LatencyResult& r) {
  const LatencyStats& s = r.half_round_trip;
  char line[320];
  std::snprintf(line, sizeof line,
                "{\"bytes\": %zu, \"iters\": %d, \"t_min_us\": %.3f, \"t_median_us\": %.3f, \"t_p99_us\": %.3f, "
                "\"t_avg_us\": %.3f, \"errors\": %llu}",
                r.bytes, r.iters, s.min_s * 1e6, s.median_s * 1e6, s.p99_s * 1e6, s.mean_s * 1e6,
                static_cast<unsigned long long>(r.errors));
  return line;
}

std::string json_row(const BandwidthResult& r) {
  char line[320];
  std::snprintf(line, sizeof line,
                "{\"bytes\": %zu, \"window\": %d, \"reps\": %d, \"bw_median_MBps\": %.3f, "
                "\"bw_median_Gbps\": %.4f, \"bw_max_Gbps\": %.4f, \"msg_rate_Mpps\": %.6f, "
                "\"rep_median_us\": %.3f, \"errors\": %llu}",
                r.bytes, r.window, r.reps, r.mbps_median, r.gbps_median, r.gbps_max, r.msg_rate_mpps,
                r.rep_time.median_s * 1e6, static_cast<unsigned long long>(r.errors));
  return line;
}

template <typename Row>
void write_rows(std::ofstream& file, const std::vector<Row>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) file << (i ? ",\n    " : "\n    ") << json_row(rows[i]);
}

}  // namespace

void print_p2p_header(std::FILE* out, const P2PRunInfo& info) {
  const P2POptions& o = info.options;
  std::fprintf(out, "# rcoll-p2p: test %s, ranks 2, transport %s, iters %d, warmup %d",
               std::string(to_string(o.test)).c_str(), info.transport.c_str(), o.iterations(), o.warmups());
  if (o.test == P2PTest::bw) std::fprintf(out, ", window %d", o.window);
  std::fprintf(out, ", check %s, host %s\n", o.check ? "on" : "off", info.host.c_str());
  if (o.test == P2PTest::lat)
    std::fprintf(out, "#%12s %8s %12s %12s %12s %12s %7s\n", "bytes", "iters", "t_min_us", "t_median_us",
                 "t_p99_us", "t_avg_us", "errors");
  else
    std::fprintf(out, "#%12s %7s %6s %15s %14s %12s %14s %7s\n", "bytes", "window", "reps", "bw_median_MBps",
                 "bw_median_Gbps", "bw_max_Gbps", "msg_rate_Mpps", "errors");
  std::fflush(out);
}

void print_latency_row(std::FILE* out, const LatencyResult& r) {
  const LatencyStats& s = r.half_round_trip;
  std::fprintf(out, " %12zu %8d %12.2f %12.2f %12.2f %12.2f %7llu\n", r.bytes, r.iters, s.min_s * 1e6,
               s.median_s * 1e6, s.p99_s * 1e6, s.mean_s * 1e6, static_cast<unsigned long long>(r.errors));
  std::fflush(out);
}

void print_bandwidth_row(std::FILE* out, const BandwidthResult& r) {
  std::fprintf(out, " %12zu %7d %6d %15.2f %14.3f %12.3f %14.4f %7llu\n", r.bytes, r.window, r.reps, r.mbps_median,
               r.gbps_median, r.gbps_max, r.msg_rate_mpps, static_cast<unsigned long long>(r.errors));
  std::fflush(out);
}

void write_p2p_json(const std::string& path, const P2PRunInfo& info, const std::vector<LatencyResult>& lat,
                    const std::vector<BandwidthResult>& bw) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot open '" + path + "' for writing: " + std::strerror(errno));
  file << "{\n  \"meta\": " << json_meta(info) << ",\n  \"results\": [";
  if (info.options.test == P2PTest::lat) write_rows(file, lat);
  else write_rows(file, bw);
  file << "\n  ]\n}\n";
  file.close();
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
}

}  // namespace rcoll::bench
