#include "collectives/ring_reduce_scatter.hpp"

#include <algorithm>

#include "collectives/reduce.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {

// Why recycling partial-sum slots cannot deadlock the ring. Number the
// sends of a rank in queue order: first the c segments of its own chunk,
// then the forward of its item i as send c + i; its right neighbour
// receives them as its items 0, 1, ... in that order. Before reducing
// item i into the slot of item i - K (K = slot_count), a rank waits for
// send c + i - K, which the right neighbour posts for once it has released
// item c + i - K - depth. Suppose every rank is stuck, at item i_x of rank x.
// One waiting for a send (on its right neighbour y) shows i_y <= i_x + c - K
// - depth < i_x when K > c; one waiting for item i_x from its left w shows
// w has not yet forwarded it, i_w <= i_x - c_w. Following who waits on whom
// must close a cycle; a cycle with any send wait then has i_x < i_x, and
// one of receive waits only goes round the whole ring, where the c_w add
// up to every chunk's segments (> 0, or there would be no items): again
// i_x < i_x. So some rank can always move.
std::size_t ring_reduce_scatter_slots(const Context& ctx, const Ring& ring) {
  std::size_t most = 0;
  for (int k = 0; k < ring.size; ++k) most = std::max(most, segment_count(ring.chunk(k).count, ring.segment));
  return most + 1 + std::max<std::size_t>(ctx.depth, 1);
}

void ring_reduce_scatter(const Context& ctx, const Ring& ring, const RingReduceScatter& rs, DataType type,
                         ReduceOp op, PacedSends& sends) {
  const std::size_t depth = std::max<std::size_t>(ctx.depth, 1);
  Scratch scratch(depth * ring.segment * ring.element_size);
  send_chunk(ring, rs.input, rs.first_chunk, 0, sends);
  const std::size_t own_sends = segment_count(ring.chunk(rs.first_chunk).count, ring.segment);  // c above
  const std::size_t slot_bytes = ring.segment * ring.element_size;
  RingReceives items(ring, rs.first_chunk - 1, 0, scratch.get(), depth);
  RecvWindow window(ctx, items.count(), items, depth, &sends);
  std::size_t index = 0;
  for (int s = 0; s + 1 < ring.size; ++s) {
    const Range chunk = ring.chunk(rs.first_chunk - s - 1);
    const bool last = s + 2 == ring.size;
    const std::size_t segments = segment_count(chunk.count, ring.segment);
    const auto label = step_label(ctx, "{} step {}/{}", rs.name, s + 1, ring.size - 1);
    for (std::size_t j = 0; j < segments; ++j, ++index) {
      const RecvItem item = window.wait(index, label);
      const Range seg = segment_range(chunk.count, ring.segment, j);
      const std::size_t first = chunk.offset + seg.offset;
      std::byte* out = nullptr;
      if (last) {
        out = rs.complete + seg.offset * ring.element_size;
      } else if (rs.slots == nullptr) {
        out = ring.at(first);
      } else {
        if (index >= rs.slot_count) sends.wait_completed(own_sends + index - rs.slot_count + 1, label);
        out = rs.slots + (index % rs.slot_count) * slot_bytes;
      }
      reduce(out, rs.input + first * ring.element_size, item.buf, seg.count, type, op);
      window.release();
      if (!last || rs.forward_complete) sends.send(ring.right, static_cast<std::uint32_t>(s + 1), out, item.bytes);
    }
  }
}

}  // namespace rcoll::collectives
