// The bandwidth test: unidirectional streaming, as perftest's ib_write_bw
// (which keeps many writes in flight). Comm::send blocks until the transport
// has the message: an eager send returns once posted, a rendezvous send only
// after the receiver's clear-to-send and the data transfer, so with the
// blocking API at most one rendezvous message is in flight.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <span>
#include <vector>

#include "measure.hpp"

namespace rcoll::bench {
namespace {

constexpr int kDataTag = 1;
constexpr int kAckTag = 2;

class Stream {
 public:
  Stream(Comm& comm, P2PBuffers& buffers, std::size_t bytes, int window)
      : comm_(comm), buffers_(buffers), bytes_(bytes), window_(window) {}

  // One repetition; returns the wrong byte count (length mismatches only).
  std::uint64_t once() {
    std::array<std::byte, 1> ack{};
    if (comm_.rank() == 0) {
      for (int i = 0; i < window_; ++i) comm_.send(buffers_.send.data(), bytes_, DataType::uint8, 1, kDataTag);
      comm_.recv(ack.data(), ack.size(), DataType::uint8, 1, kAckTag);
      return 0;
    }
    std::uint64_t wrong = 0;
    for (int i = 0; i < window_; ++i) {
      const std::size_t got = comm_.recv(buffers_.recv.data(), bytes_, DataType::uint8, 0, kDataTag);
      wrong += got == bytes_ ? 0 : bytes_;
    }
    comm_.send(ack.data(), ack.size(), DataType::uint8, 0, kAckTag);
    return wrong;
  }

 private:
  Comm& comm_;
  P2PBuffers& buffers_;
  std::size_t bytes_;
  int window_;
};

void fill_rates(BandwidthResult& r) {
  const double payload = static_cast<double>(r.bytes) * r.window;
  const double median = r.rep_time.median_s;
  if (median > 0) {
    r.mbps_median = payload / median / 1e6;
    r.gbps_median = payload * 8 / median / 1e9;
    r.msg_rate_mpps = r.window / median / 1e6;
  }
  if (r.rep_time.min_s > 0) r.gbps_max = payload * 8 / r.rep_time.min_s / 1e9;
}

}  // namespace

BandwidthResult run_bandwidth(Comm& comm, const P2POptions& options, P2PBuffers& buffers, std::size_t bytes) {
  BandwidthResult result;
  result.bytes = bytes;
  result.window = options.window;
  result.reps = options.iterations();
  if (comm.rank() == 0) fill_pattern(buffers.send.data(), bytes, 0);
  else std::memset(buffers.recv.data(), 0, bytes);
  Stream stream(comm, buffers, bytes, options.window);
  std::uint64_t wrong = 0;
  for (int i = 0; i < options.warmups(); ++i) wrong += stream.once();
  comm.barrier();
  std::vector<double> seconds(static_cast<std::size_t>(result.reps));
  for (double& s : seconds) {
    const auto start = std::chrono::steady_clock::now();
    wrong += stream.once();
    s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (options.check && comm.rank() == 1) wrong += count_wrong(buffers.recv.data(), bytes, 0);
  std::array<std::uint64_t, 1> errors{wrong};
  comm.allreduce(std::span<std::uint64_t>(errors), ReduceOp::sum);
  result.rep_time = summarize(std::move(seconds));  // meaningful on rank 0
  result.errors = errors[0];
  fill_rates(result);
  return result;
}

}  // namespace rcoll::bench
