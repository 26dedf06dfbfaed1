// Output of the peer benchmarks: the same text lines and JSON document as
// rcoll-bench (bench/rcoll-bench/report.cpp), so that one parser reads every
// library's results. Extra meta keys: "library" and "version".
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "common/peer_options.hpp"
#include "common/size_result.hpp"

namespace rcoll::peers {

struct PeerRunInfo {
  PeerOptions options;
  std::string library;    // "openmpi", "mpich", "gloo"
  std::string version;    // one line
  std::string transport;  // "tcp"
  int ranks = 0;
  std::string host;
};

// The same record as rcoll-bench's (per iteration the slowest rank).
using PeerResult = bench::SizeResult;

void print_peer_header(std::FILE* out, const PeerRunInfo& info);
void print_peer_row(std::FILE* out, const PeerRunInfo& info, const PeerResult& r);
void print_peer_footer(std::FILE* out, const std::vector<PeerResult>& results);
// Throws std::runtime_error when the file cannot be written.
void write_peer_json(const std::string& path, const PeerRunInfo& info, const std::vector<PeerResult>& results);

}  // namespace rcoll::peers
