// Output of rcoll-p2p (rank 0 only): a perftest-like table on stdout and,
// with --json, a JSON document.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "measure.hpp"
#include "options.hpp"

namespace rcoll::bench {

struct P2PRunInfo {
  P2POptions options;
  std::string transport;
  std::string host;
};

void print_p2p_header(std::FILE* out, const P2PRunInfo& info);
void print_latency_row(std::FILE* out, const LatencyResult& r);
void print_bandwidth_row(std::FILE* out, const BandwidthResult& r);

// {"meta": {...}, "results": [...]}: exactly one of the vectors is used,
// by options.test. Throws std::runtime_error naming the file on failure.
void write_p2p_json(const std::string& path, const P2PRunInfo& info, const std::vector<LatencyResult>& lat,
                    const std::vector<BandwidthResult>& bw);

}  // namespace rcoll::bench
