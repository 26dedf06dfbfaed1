// The latency test: ping-pong, as perftest's ib_send_lat.
#include <array>
#include <chrono>
#include <cstring>
#include <span>
#include <vector>

#include "measure.hpp"

namespace rcoll::bench {
namespace {

constexpr int kTag = 1;

class PingPong {
 public:
  PingPong(Comm& comm, P2PBuffers& buffers, std::size_t bytes)
      : comm_(comm), buffers_(buffers), bytes_(bytes), peer_(1 - comm.rank()) {}

  // One round trip; returns the wrong byte count (length mismatches only).
  std::uint64_t once() {
    if (comm_.rank() == 0) {
      send();
      return receive();
    }
    const std::uint64_t wrong = receive();
    send();
    return wrong;
  }

 private:
  void send() { comm_.send(buffers_.send.data(), bytes_, DataType::uint8, peer_, kTag); }
  std::uint64_t receive() {
    const std::size_t got = comm_.recv(buffers_.recv.data(), bytes_, DataType::uint8, peer_, kTag);
    return got == bytes_ ? 0 : bytes_;
  }

  Comm& comm_;
  P2PBuffers& buffers_;
  std::size_t bytes_;
  int peer_;
};

}  // namespace

LatencyResult run_latency(Comm& comm, const P2POptions& options, P2PBuffers& buffers, std::size_t bytes) {
  LatencyResult result;
  result.bytes = bytes;
  result.iters = options.iterations();
  fill_pattern(buffers.send.data(), bytes, comm.rank());
  std::memset(buffers.recv.data(), 0, bytes);
  PingPong pingpong(comm, buffers, bytes);
  std::uint64_t wrong = 0;
  for (int i = 0; i < options.warmups(); ++i) wrong += pingpong.once();
  comm.barrier();
  std::vector<double> half(static_cast<std::size_t>(result.iters));
  for (double& h : half) {
    const auto start = std::chrono::steady_clock::now();
    wrong += pingpong.once();
    h = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 2;
  }
  if (options.check) wrong += count_wrong(buffers.recv.data(), bytes, 1 - comm.rank());
  std::array<std::uint64_t, 1> errors{wrong};
  comm.allreduce(std::span<std::uint64_t>(errors), ReduceOp::sum);
  result.half_round_trip = summarize(std::move(half));  // meaningful on rank 0
  result.errors = errors[0];
  return result;
}

}  // namespace rcoll::bench
