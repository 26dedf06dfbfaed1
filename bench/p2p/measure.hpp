// The two measurements of rcoll-p2p, each for one message size. Both ranks
// call them with the same arguments; rank 0 times, rank 1 answers. Only the
// public API is used (Comm::send / Comm::recv, which block), so the numbers
// are what an application of rcoll sees.
#pragma once

#include <cstddef>
#include <cstdint>

#include <rcoll/rcoll.hpp>

#include "common/aligned_buffer.hpp"
#include "common/stats.hpp"
#include "options.hpp"

namespace rcoll::bench {

// One send and one receive buffer, each of the largest size.
struct P2PBuffers {
  explicit P2PBuffers(std::size_t bytes) : send(bytes), recv(bytes) {}
  AlignedBuffer send;
  AlignedBuffer recv;
};

struct LatencyResult {
  std::size_t bytes = 0;
  int iters = 0;
  LatencyStats half_round_trip;  // rank 0's per-iteration round trip / 2
  std::uint64_t errors = 0;      // wrong bytes, summed over both ranks (--check)
};

struct BandwidthResult {
  std::size_t bytes = 0;
  int window = 0;
  int reps = 0;
  LatencyStats rep_time;  // per repetition: window sends + the ack
  double mbps_median = 0;  // 1e6 bytes/s at the median repetition
  double gbps_median = 0;  // 1e9 bits/s at the median repetition
  double gbps_max = 0;     // at the fastest repetition
  double msg_rate_mpps = 0;  // million messages/s at the median repetition
  std::uint64_t errors = 0;
};

// Ping-pong: rank 0 sends `bytes` and waits for the same size back.
LatencyResult run_latency(Comm& comm, const P2POptions& options, P2PBuffers& buffers, std::size_t bytes);

// Streaming: rank 0 sends `options.window` messages of `bytes` back to back,
// then waits for a one-byte ack that rank 1 sends after receiving them all.
BandwidthResult run_bandwidth(Comm& comm, const P2POptions& options, P2PBuffers& buffers, std::size_t bytes);

// --check support: the bytes rank `writer` sends at `bytes` (never zero,
// different per size and rank, so a stale or foreign message shows).
void fill_pattern(std::byte* buf, std::size_t bytes, int writer);
std::uint64_t count_wrong(const std::byte* buf, std::size_t bytes, int writer);

}  // namespace rcoll::bench
