// tcp_stream: single-stream TCP bandwidth over 127.0.0.1 with plain
// sockets, the physical limit of one loopback connection that
// bench/compare shows next to the collectives' busbw. A forked receiver
// reads every byte into its buffer; per size and repetition the sender
// writes --min-total bytes (whole messages of `size` bytes) and stops the
// clock when the receiver's 1-byte acknowledgement arrives. Default socket
// buffers, never a pacing congestion control (loopback_pair.cpp); every
// socket wait times out after 60 s (exit 1, never a hang).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>

#include "common/aligned_buffer.hpp"
#include "common/limit_report.hpp"
#include "common/loopback_pair.hpp"

namespace {

using namespace rcoll::peers;

// The receiver's whole life: every repetition of every size (plus one
// warm-up repetition each), then exit.
int receive(const LimitOptions& options, int fd) {
  for (std::size_t bytes : options.sizes) {
    rcoll::bench::AlignedBuffer buffer(bytes);
    for (int rep = 0; rep <= options.reps; ++rep) {
      for (std::size_t i = 0; i < transfers_for(options, bytes); ++i) recv_all(fd, buffer.data(), bytes);
      send_all(fd, buffer.data(), 1);
    }
  }
  return 0;
}

std::vector<LimitResult> send_sizes(const LimitOptions& options, int fd) {
  std::vector<LimitResult> results;
  for (std::size_t bytes : options.sizes) {
    rcoll::bench::AlignedBuffer buffer(bytes);
    std::memset(buffer.data(), 3, bytes);
    const std::size_t transfers = transfers_for(options, bytes);
    LimitResult result{bytes, {}};
    for (int rep = 0; rep <= options.reps; ++rep) {  // rep 0 warms up
      const auto start = std::chrono::steady_clock::now();
      for (std::size_t i = 0; i < transfers; ++i) send_all(fd, buffer.data(), bytes);
      std::byte ack{};
      recv_all(fd, &ack, 1);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (rep > 0) result.values.push_back(static_cast<double>(transfers * bytes) / seconds / 1e9);
    }
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace

int main(int argc, char** argv) {
  const LimitOptions options = parse_limit_options(argc, argv, "tcp_stream",
                                                   "single-stream TCP bandwidth over 127.0.0.1 (two processes)");
  try {
    LoopbackPair pair("tcp_stream receiver", [&options](int fd) { return receive(options, fd); });
    const auto results = send_sizes(options, pair.fd());
    pair.finish();
    report_limits("tcp_stream", options, results, LimitUnit::gbps);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tcp_stream: %s\n", e.what());
    return 1;
  }
}
