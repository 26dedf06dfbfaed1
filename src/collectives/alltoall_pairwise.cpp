// Pairwise alltoall over any Blocks (the only alltoallv algorithm): n - 1
// steps; step i sends block rank + i to rank + i and receives block rank - i
// from rank - i (mod n), so in every step each rank sends one message and
// receives one, and no rank is the target of two. The own block is copied
// locally. (n - 1) alpha + (n - 1)/n S beta, S one rank's send buffer.
//
// Not every step at once: the sends go through a PacedSends and the
// receives through a RecvWindow, both bounded by ctx.depth (or
// default_window where the plan gives no depth), so a large world keeps a
// few messages per rank in the transport rather than n - 1 of them. Both
// ends take the steps in the same order, which is what PacedSends needs to
// be deadlock-free. A zero-byte block is not sent: both ends see its count
// (the send count of one equals the receive count of the other) and skip it.
#include <cstring>

#include "collectives/algorithms.hpp"
#include "collectives/paced_sends.hpp"
#include "collectives/requests.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

constexpr std::size_t default_window = 4;

// The receives of steps 1 .. n - 1 that carry bytes, in step order, made one at a time.
class PairwiseReceives final : public RecvSource {
 public:
  PairwiseReceives(int rank, int size, std::byte* recv, const Blocks& blocks)
      : rank_(rank), size_(size), recv_(recv), blocks_(blocks) {
    for (int i = 1; i < size; ++i) count_ += blocks.bytes(wrap(rank - i, size)) > 0 ? 1 : 0;
  }
  std::size_t count() const noexcept { return count_; }
  RecvItem next() override {
    while (blocks_.bytes(wrap(rank_ - step_, size_)) == 0) ++step_;
    const int from = wrap(rank_ - step_, size_);
    return {from, static_cast<std::uint32_t>(step_++), recv_ + blocks_.offset(from), blocks_.bytes(from)};
  }

 private:
  int rank_;
  int size_;
  std::byte* recv_;
  const Blocks& blocks_;
  std::size_t count_ = 0;
  int step_ = 1;
};

}  // namespace

void alltoall_pairwise(const Context& ctx, const void* send, const Blocks& send_blocks, void* recv,
                       const Blocks& recv_blocks) {
  const int n = ctx.size();
  const int rank = ctx.rank();
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (send_blocks.bytes(rank) > 0)
    std::memcpy(out + recv_blocks.offset(rank), in + send_blocks.offset(rank), send_blocks.bytes(rank));
  if (n == 1) return;
  const std::size_t window = ctx.depth > 0 ? ctx.depth : default_window;
  PacedSends sends(ctx, window);
  PairwiseReceives items(rank, n, out, recv_blocks);
  RecvWindow receives(ctx, items.count(), items, window, &sends);
  for (int i = 1; i < n; ++i) {
    const int to = wrap(rank + i, n);
    if (send_blocks.bytes(to) > 0)
      sends.send(to, static_cast<std::uint32_t>(i), in + send_blocks.offset(to), send_blocks.bytes(to));
  }
  for (std::size_t index = 0; index < items.count(); ++index) {
    receives.wait(index, step_label(ctx, "alltoall pairwise receive {} of {}", index + 1, items.count()));
    receives.release();
  }
  sends.wait_all(step_label(ctx, "alltoall pairwise sends"));
}

}  // namespace rcoll::collectives
