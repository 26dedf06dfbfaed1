// tcp_pingpong: one-way latency of TCP over 127.0.0.1 with plain sockets,
// the physical floor that bench/compare shows next to the collectives'
// small-message times. A forked peer echoes each message; per size and
// repetition the parent times --round-trips round trips of `size` bytes,
// and one-way latency = time / round trips / 2. Both sides poll their
// socket without sleeping (as the libraries compared do while they wait),
// so no message waits for a process to be woken. TCP_NODELAY; every wait
// times out after 60 s (exit 1, never a hang).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>

#include "common/aligned_buffer.hpp"
#include "common/limit_report.hpp"
#include "common/loopback_pair.hpp"

namespace {

using namespace rcoll::peers;

// The echoing side: every round trip of every repetition (plus one warm-up
// repetition each) of every size, then exit.
int echo(const LimitOptions& options, int fd) {
  for (std::size_t bytes : options.sizes) {
    rcoll::bench::AlignedBuffer buffer(bytes);
    for (long i = 0; i < static_cast<long>(options.reps + 1) * options.round_trips; ++i) {
      recv_all(fd, buffer.data(), bytes, true);
      send_all(fd, buffer.data(), bytes);
    }
  }
  return 0;
}

std::vector<LimitResult> time_sizes(const LimitOptions& options, int fd) {
  std::vector<LimitResult> results;
  for (std::size_t bytes : options.sizes) {
    rcoll::bench::AlignedBuffer buffer(bytes);
    std::memset(buffer.data(), 5, bytes);
    LimitResult result{bytes, {}};
    for (int rep = 0; rep <= options.reps; ++rep) {  // rep 0 warms up
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < options.round_trips; ++i) {
        send_all(fd, buffer.data(), bytes);
        recv_all(fd, buffer.data(), bytes, true);
      }
      const std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
      if (rep > 0) result.values.push_back(elapsed.count() / options.round_trips / 2);
    }
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace

int main(int argc, char** argv) {
  const LimitOptions options = parse_limit_options(argc, argv, "tcp_pingpong",
                                                   "one-way TCP latency over 127.0.0.1 (two polling processes)");
  try {
    LoopbackPair pair("tcp_pingpong echo", [&options](int fd) { return echo(options, fd); });
    const auto results = time_sizes(options, pair.fd());
    pair.finish();
    report_limits("tcp_pingpong", options, results, LimitUnit::microseconds);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tcp_pingpong: %s\n", e.what());
    return 1;
  }
}
