// Pipelined ring allgather, shared by ring allreduce (its second phase),
// scatter+allgather bcast and the allgather(v) ring.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectives/collectives.hpp"
#include "collectives/paced_sends.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"

namespace rcoll::collectives {

// A buffer of `count` elements of `element_size` bytes cut into ctx.size()
// chunks (ring_chunk), each moved in segments of `segment` elements, around
// the ring left -> this rank -> right. With `blocks` set, chunk k is rank
// k's block instead (element_size must be blocks->unit; count is unused).
struct Ring {
  std::byte* buf = nullptr;
  std::size_t count = 0;
  std::size_t element_size = 1;
  std::size_t segment = 1;
  int size = 1;
  int left = 0;
  int right = 0;
  const Blocks* blocks = nullptr;  // outlives the ring

  // Chunk k (taken mod size), in elements.
  Range chunk(int k) const {
    const int r = wrap(k, size);
    if (blocks == nullptr) return ring_chunk(count, size, r);
    return {blocks->offset(r) / element_size, blocks->bytes(r) / element_size};
  }
  std::byte* at(std::size_t element) const { return buf + element * element_size; }
};

// The receives of consecutive ring steps from ring.left, made one at a
// time: step t takes chunk first_chunk - t (tag step first_step + t), in
// segments of ring.segment elements, for ring.size - 1 steps. They land in
// place in ring.buf, or with `scratch` set in scratch slot (item mod
// `slots`) of ring.segment elements each.
class RingReceives final : public RecvSource {
 public:
  RingReceives(const Ring& ring, int first_chunk, std::uint32_t first_step, std::byte* scratch = nullptr,
               std::size_t slots = 1);
  std::size_t count() const noexcept { return count_; }
  RecvItem next() override;

 private:
  const Ring& ring_;
  int first_chunk_;
  std::uint32_t first_step_;
  std::byte* scratch_;
  std::size_t slots_;
  std::size_t count_ = 0;
  int step_ = 0;
  std::size_t segment_ = 0;  // within step_
  std::size_t index_ = 0;    // items made so far
};

// Queues the segments of chunk `chunk` of `base` (laid out as ring.buf)
// for ring.right with tag step `step`; `sends` posts them as its bound allows.
void send_chunk(const Ring& ring, const std::byte* base, int chunk, std::uint32_t step, PacedSends& sends);

// On entry this rank holds chunk `owned`; after size - 1 steps it holds all.
// Step t sends chunk owned - t to the right and receives chunk owned - t - 1
// from the left straight into `buf`, forwarding each segment as soon as it
// arrives. Step t uses ctx.tag(first_step + t). Returns when every send
// has completed.
void ring_allgather(const Context& ctx, const Ring& ring, int owned, std::uint32_t first_step,
                    std::string_view name);

// The same with step 0 already queued in `sends` and the receives already
// posted: `receives` is a window over RingReceives(ring, owned - 1,
// first_step) with `sends` as its hook. A caller posts them before an
// earlier phase, so that segments which come early land in place and a
// rendezvous is cleared as soon as its sender asks. Waits for every send
// in `sends` before returning.
void forward_allgather(const Context& ctx, const Ring& ring, int owned, std::string_view name, PacedSends& sends,
                       RecvWindow& receives);

}  // namespace rcoll::collectives
