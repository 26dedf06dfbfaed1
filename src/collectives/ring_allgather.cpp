#include "collectives/ring_allgather.hpp"

#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

void send_chunk(const Ring& ring, int k, std::uint32_t step, RequestList& sends) {
  const Range chunk = ring.chunk(k);
  const std::size_t segments = segment_count(chunk.count, ring.segment);
  for (std::size_t j = 0; j < segments; ++j) {
    const Range seg = segment_range(chunk.count, ring.segment, j);
    sends.send(ring.right, step, ring.at(chunk.offset + seg.offset), seg.count * ring.element_size);
  }
}

}  // namespace

std::vector<RecvItem> allgather_receives(const Ring& ring, int owned, std::uint32_t first_step) {
  std::vector<RecvItem> items;
  for (int t = 0; t + 1 < ring.size; ++t) {
    const Range chunk = ring.chunk(owned - t - 1);
    const std::size_t segments = segment_count(chunk.count, ring.segment);
    for (std::size_t j = 0; j < segments; ++j) {
      const Range seg = segment_range(chunk.count, ring.segment, j);
      items.push_back({ring.left, first_step + static_cast<std::uint32_t>(t), ring.at(chunk.offset + seg.offset),
                       seg.count * ring.element_size});
    }
  }
  return items;
}

void ring_allgather(const Context& ctx, const Ring& ring, int owned, std::uint32_t first_step,
                    std::string_view name, RequestList& sends) {
  send_chunk(ring, owned, first_step, sends);
  RecvWindow receives(ctx, allgather_receives(ring, owned, first_step), ctx.depth);
  forward_allgather(ctx, ring, owned, name, sends, receives);
}

void forward_allgather(const Context& ctx, const Ring& ring, int owned, std::string_view name, RequestList& sends,
                       RecvWindow& receives) {
  std::size_t index = 0;
  for (int t = 0; t + 1 < ring.size; ++t) {
    const std::size_t segments = segment_count(ring.chunk(owned - t - 1).count, ring.segment);
    if (segments == 0) continue;
    const auto label = step_label(ctx, "{} step {}/{}", name, t + 1, ring.size - 1);
    const bool forward = t + 2 < ring.size;
    for (std::size_t j = 0; j < segments; ++j, ++index) {
      const RecvItem& item = receives.wait(index, label);
      receives.release();
      if (forward) sends.send(ring.right, item.step + 1, item.buf, item.bytes);
    }
  }
  sends.wait_all(step_label(ctx, "{} sends", name));
}

}  // namespace rcoll::collectives
