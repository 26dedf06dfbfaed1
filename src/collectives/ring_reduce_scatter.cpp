#include "collectives/ring_reduce_scatter.hpp"

#include <algorithm>

#include "collectives/reduce.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {

void ring_reduce_scatter(const Context& ctx, const Ring& ring, const RingReduceScatter& rs, DataType type,
                         ReduceOp op, PacedSends& sends) {
  const std::size_t depth = std::max<std::size_t>(ctx.depth, 1);
  Scratch scratch(depth * ring.segment * ring.element_size);
  send_chunk(ring, rs.input, rs.first_chunk, 0, sends);
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
      std::byte* out = last ? rs.complete + seg.offset * ring.element_size : ring.at(first);
      reduce(out, rs.input + first * ring.element_size, item.buf, seg.count, type, op);
      window.release();
      if (!last || rs.forward_complete) sends.send(ring.right, static_cast<std::uint32_t>(s + 1), out, item.bytes);
    }
  }
}

}  // namespace rcoll::collectives
