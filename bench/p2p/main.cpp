// rcoll-p2p: perftest-style point-to-point benchmark of rcoll (latency by
// ping-pong, bandwidth by streaming), built only on the public API. Run it
// with two ranks under the launcher, e.g.
//   tools/rcoll-run -n 2 --transport rdma -- rcoll-p2p --test lat --max-bytes 64K
// Rank 0 prints one line per message size; exit status 1 when --check found
// wrong bytes or rcoll raised an error, 2 for a bad command line or a job
// that does not have exactly 2 ranks.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <rcoll/rcoll.hpp>

#include "common/json.hpp"
#include "measure.hpp"
#include "options.hpp"
#include "report.hpp"

namespace rcoll::bench {
namespace {

template <typename Result>
bool any_errors(const std::vector<Result>& results) {
  return std::any_of(results.begin(), results.end(), [](const Result& r) { return r.errors != 0; });
}

int run_p2p(Comm& comm, const P2PRunInfo& info) {
  const bool printer = comm.rank() == 0;
  const P2POptions& options = info.options;
  const std::vector<std::size_t> sizes = p2p_sizes(options);
  P2PBuffers buffers(sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end()));
  if (printer) print_p2p_header(stdout, info);
  std::vector<LatencyResult> lat;
  std::vector<BandwidthResult> bw;
  for (std::size_t bytes : sizes) {
    if (options.test == P2PTest::lat) {
      lat.push_back(run_latency(comm, options, buffers, bytes));
      if (printer) print_latency_row(stdout, lat.back());
    } else {
      bw.push_back(run_bandwidth(comm, options, buffers, bytes));
      if (printer) print_bandwidth_row(stdout, bw.back());
    }
  }
  if (printer && !options.json_path.empty()) write_p2p_json(options.json_path, info, lat, bw);
  return any_errors(lat) || any_errors(bw) ? 1 : 0;
}

}  // namespace
}  // namespace rcoll::bench

int main(int argc, char** argv) {
  using namespace rcoll::bench;
  P2PRunInfo info;
  try {
    info.options = parse_p2p_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rcoll-p2p: %s\n%s", e.what(), p2p_usage_text());
    return 2;
  }
  if (info.options.help) {
    std::fputs(p2p_usage_text(), stdout);
    return 0;
  }
  info.host = host_name();
  try {
    rcoll::Comm comm = rcoll::Comm::from_env();
    if (comm.size() != 2) {
      if (comm.rank() == 0) std::fprintf(stderr, "rcoll-p2p: needs exactly 2 ranks, the job has %d\n", comm.size());
      return 2;
    }
    info.transport = comm.transport_name();
    return rcoll::bench::run_p2p(comm, info);
  } catch (const std::exception& e) {
    // rcoll errors already name the rank, peer and step.
    std::fprintf(stderr, "rcoll-p2p: %s\n", e.what());
    return 1;
  }
}
