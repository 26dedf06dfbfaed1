#include "collectives/block_moves.hpp"

#include <algorithm>

#include "collectives/requests.hpp"

namespace rcoll::collectives {

std::size_t largest_block(const Blocks& blocks, int size) {
  if (blocks.uniform()) return blocks.bytes(0);
  std::size_t largest = 0;
  for (int r = 0; r < size; ++r) largest = std::max(largest, blocks.bytes(r));
  return largest;
}

void send_message(const Context& ctx, int peer, std::uint32_t step, const void* buf, std::size_t bytes,
                  const LazyText& label) {
  if (bytes == 0) return;
  RequestList request(ctx);
  request.send(peer, step, buf, bytes);
  request.wait_all(label);
}

void receive_message(const Context& ctx, int peer, std::uint32_t step, void* buf, std::size_t bytes,
                     const LazyText& label) {
  if (bytes == 0) return;
  RequestList request(ctx);
  request.add(ctx.transport.irecv(peer, ctx.tag(step), buf, bytes));
  request.wait_all(label);
}

}  // namespace rcoll::collectives
