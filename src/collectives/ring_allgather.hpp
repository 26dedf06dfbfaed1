// Pipelined ring allgather, shared by ring allreduce (its second phase) and
// scatter+allgather bcast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectives/collectives.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"

namespace rcoll::collectives {

// A buffer of `count` elements of `element_size` bytes cut into ctx.size()
// chunks (ring_chunk), each moved in segments of `segment` elements, around
// the ring left -> this rank -> right.
struct Ring {
  std::byte* buf = nullptr;
  std::size_t count = 0;
  std::size_t element_size = 1;
  std::size_t segment = 1;
  int size = 1;
  int left = 0;
  int right = 0;

  // Chunk k (taken mod size), in elements.
  Range chunk(int k) const { return ring_chunk(count, size, wrap(k, size)); }
  std::byte* at(std::size_t element) const { return buf + element * element_size; }
};

// On entry this rank holds chunk `owned`; after size - 1 steps it holds all.
// Step t sends chunk owned - t to the right and receives chunk owned - t - 1
// from the left straight into `buf`, forwarding each segment as soon as it
// arrives. Step t uses ctx.tag(first_step + t). Waits for every send in
// `sends` before returning.
void ring_allgather(const Context& ctx, const Ring& ring, int owned, std::uint32_t first_step,
                    std::string_view name, RequestList& sends);

// The same with step 0 already sent through `sends` and the receives
// already posted: `receives` is a window over allgather_receives(ring,
// owned, first_step). A caller posts them before an earlier phase, so that
// segments which come early land in place and a rendezvous is cleared as
// soon as its sender asks.
std::vector<RecvItem> allgather_receives(const Ring& ring, int owned, std::uint32_t first_step);
void forward_allgather(const Context& ctx, const Ring& ring, int owned, std::string_view name, RequestList& sends,
                       RecvWindow& receives);

}  // namespace rcoll::collectives
