#include "collectives/ring_allgather.hpp"

#include "collectives/step_label.hpp"

namespace rcoll::collectives {

RingReceives::RingReceives(const Ring& ring, int first_chunk, std::uint32_t first_step, std::byte* scratch,
                           std::size_t slots)
    : ring_(ring), first_chunk_(first_chunk), first_step_(first_step), scratch_(scratch), slots_(slots) {
  for (int t = 0; t + 1 < ring.size; ++t) count_ += segment_count(ring.chunk(first_chunk - t).count, ring.segment);
}

RecvItem RingReceives::next() {
  Range chunk = ring_.chunk(first_chunk_ - step_);
  while (segment_ == segment_count(chunk.count, ring_.segment)) {  // steps with no segments give no items
    ++step_;
    segment_ = 0;
    chunk = ring_.chunk(first_chunk_ - step_);
  }
  const Range seg = segment_range(chunk.count, ring_.segment, segment_++);
  std::byte* buf = scratch_ != nullptr ? scratch_ + (index_ % slots_) * ring_.segment * ring_.element_size
                                       : ring_.at(chunk.offset + seg.offset);
  ++index_;
  return {ring_.left, first_step_ + static_cast<std::uint32_t>(step_), buf, seg.count * ring_.element_size};
}

void send_chunk(const Ring& ring, const std::byte* base, int chunk, std::uint32_t step, PacedSends& sends) {
  const Range whole = ring.chunk(chunk);
  for (std::size_t j = 0; j < segment_count(whole.count, ring.segment); ++j) {
    const Range seg = segment_range(whole.count, ring.segment, j);
    sends.send(ring.right, step, base + (whole.offset + seg.offset) * ring.element_size,
               seg.count * ring.element_size);
  }
}

void ring_allgather(const Context& ctx, const Ring& ring, int owned, std::uint32_t first_step,
                    std::string_view name) {
  PacedSends sends(ctx, ctx.depth);
  send_chunk(ring, ring.buf, owned, first_step, sends);
  RingReceives items(ring, owned - 1, first_step);
  RecvWindow receives(ctx, items.count(), items, ctx.depth, &sends);
  forward_allgather(ctx, ring, owned, name, sends, receives);
}

void forward_allgather(const Context& ctx, const Ring& ring, int owned, std::string_view name, PacedSends& sends,
                       RecvWindow& receives) {
  std::size_t index = 0;
  for (int t = 0; t + 1 < ring.size; ++t) {
    const std::size_t segments = segment_count(ring.chunk(owned - t - 1).count, ring.segment);
    const auto label = step_label(ctx, "{} step {}/{}", name, t + 1, ring.size - 1);
    const bool forward = t + 2 < ring.size;
    for (std::size_t j = 0; j < segments; ++j, ++index) {
      const RecvItem item = receives.wait(index, label);
      receives.release();  // in place: the next receive takes another segment
      if (forward) sends.send(ring.right, item.step + 1, item.buf, item.bytes);
    }
  }
  sends.wait_all(step_label(ctx, "{} sends", name));
}

}  // namespace rcoll::collectives
