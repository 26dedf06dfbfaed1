// Command line of rcoll-p2p. Parsing is pure (no communicator needed), so
// both ranks parse the same argv to the same P2POptions before joining.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/args.hpp"

namespace rcoll::bench {

// lat: ping-pong, half round trip per iteration.
// bw: rank 0 streams `window` messages, rank 1 answers with one small ack.
enum class P2PTest { lat, bw };

struct P2POptions {
  P2PTest test = P2PTest::lat;
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t{4} << 20;
  double step_factor = 2.0;
  // When non-empty, replaces the min/max/step sweep.
  std::vector<std::size_t> sizes;
  // lat: round trips; bw: repetitions of one window. 0 = the test's default.
  int iters = 0;
  int warmup = -1;  // -1 = the test's default
  int window = 64;  // bw: messages per repetition
  bool check = false;
  std::string json_path;
  bool help = false;

  // The defaults resolved: lat 1000 iterations after 100, bw 20 after 2.
  int iterations() const noexcept { return iters > 0 ? iters : (test == P2PTest::lat ? 1000 : 20); }
  int warmups() const noexcept { return warmup >= 0 ? warmup : (test == P2PTest::lat ? 100 : 2); }
};

std::string_view to_string(P2PTest test) noexcept;

// Throws UsageError on an unknown option or a missing or malformed value.
P2POptions parse_p2p_options(const std::vector<std::string>& args);

// --sizes as given, or the geometric sweep from --min-bytes to --max-bytes.
std::vector<std::size_t> p2p_sizes(const P2POptions& options);

const char* p2p_usage_text() noexcept;

}  // namespace rcoll::bench
