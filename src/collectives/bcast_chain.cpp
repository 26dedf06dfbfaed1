// Pipelined chain bcast: root -> root+1 -> ... -> root-1 in segments; each
// rank forwards a segment as soon as it has it. About (n - 2 + k) segment
// times for k segments: bandwidth-optimal for large messages, whatever n.
#include <algorithm>

#include "collectives/algorithms.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

constexpr std::uint32_t chain_step = 0;
// Receives posted ahead of the consumer.
constexpr std::size_t window = 8;

}  // namespace

void bcast_chain(const Context& ctx, void* buf, std::size_t bytes, int root) {
  if (ctx.size() == 1 || bytes == 0) return;
  auto* data = static_cast<std::byte*>(buf);
  const ChainLinks links = chain_links(ctx.rank(), ctx.size(), root);
  const std::size_t segment = ctx.segment_bytes;
  const std::size_t segments = segment_count(bytes, segment);
  std::vector<RecvItem> items;
  if (links.prev >= 0)
    for (std::size_t s = 0; s < segments; ++s) {
      const Range seg = segment_range(bytes, segment, s);
      items.push_back({links.prev, chain_step, data + seg.offset, seg.count});
    }
  RequestList sends(ctx);
  RecvWindow receives(ctx, std::move(items), window);
  for (std::size_t s = 0; s < segments; ++s) {
    const Range seg = segment_range(bytes, segment, s);
    if (links.prev >= 0) {
      receives.wait(s, step_label(ctx, "bcast chain from rank {} segment {}/{}", links.prev, s + 1, segments));
      receives.release();
    }
    if (links.next >= 0) sends.send(links.next, chain_step, data + seg.offset, seg.count);
  }
  sends.wait_all(step_label(ctx, "bcast chain send to rank {}", links.next));
}

}  // namespace rcoll::collectives
