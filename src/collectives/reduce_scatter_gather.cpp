// Reduce for large vectors (Rabenseifner's): a reduce_scatter of the
// vector in n near-equal chunks (ring_chunk) by the pipelined ring, then
// every rank sends its reduced chunk straight to the root. Each byte is
// reduced once, on the rank that owns its chunk, so the root reduces S/n
// instead of S: (n - 1) alpha + (n - 1)/n S max(beta, gamma), then alpha +
// (n - 1)/n S beta into the root. The ring, not recursive halving: the
// halving sends each half whole and reduces it after it arrived, which
// took two to three times as long as the pipelined ring at 2 ranks from
// 512 KiB up (docs/results/2026-12-03-collective-set.md).
//
// The chunks go through the Blocks interface, so the ring sees a
// reduce_scatter_v layout; it never writes the caller's send buffer out of
// place. Non-roots keep their chunk in scratch (their recv may be null).
// Out of place the root posts the receives of the other chunks first, into
// their places in recv, which the ring does not touch (it writes the
// root's own chunk only), so a chunk that comes early lands where it
// belongs. In place the ring works in the root's whole buffer and leaves
// the root's chunk at the start; it is moved to its place and only then
// are the other chunks received.
#include <cstring>
#include <string>
#include <vector>

#include "collectives/algorithms.hpp"
#include "collectives/requests.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
void reduce_scatter_gather(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type,
                           ReduceOp op, int root) {
  const int n = ctx.size();
  const int rank = ctx.rank();
  const std::size_t element_size = dtype_size(type);
  if (count == 0) return;
  if (n == 1) {
    if (send != recv) std::memcpy(recv, send, count * element_size);
    return;
  }
  std::vector<std::size_t> counts(static_cast<std::size_t>(n)), displs(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    const Range chunk = ring_chunk(count, n, k);
    counts[k] = chunk.count;
    displs[k] = chunk.offset;
  }
  const Blocks chunks{0, counts.data(), displs.data(), element_size};
  const std::size_t mine = chunks.bytes(rank);
  // The ring's waits name this algorithm too: "<call>: reduce reduce_scatter_gather: reduce_scatter ...".
  const auto label = [&ctx] {
    const std::string call = ctx.label.str();
    return (call.empty() ? "" : call + ": ") + "reduce reduce_scatter_gather";
  };
  // Two parts, each in a step range of its own: the ring, then the chunks to the root.
  Context inner = ctx.phase(0);
  inner.label = label;
  const Context gather = ctx.phase(1);
  if (rank != root) {
    Scratch chunk(mine);
    reduce_scatter_ring(inner, send, chunk.get(), chunks, type, op);
    if (mine == 0) return;
    RequestList request(gather);
    request.send(root, 0, chunk.get(), mine);
    request.wait_all(step_label(ctx, "reduce reduce_scatter_gather send to rank {}", root));
    return;
  }
  auto* out = static_cast<std::byte*>(recv);
  RequestList receives(gather);
  const auto receive_chunks = [&] {
    for (int k = 0; k < n; ++k)
      if (k != root && chunks.bytes(k) > 0)
        receives.add(ctx.transport.irecv(k, gather.tag(0), out + chunks.offset(k), chunks.bytes(k)));
  };
  if (send == recv) {
    reduce_scatter_ring(inner, send, recv, chunks, type, op);
    if (mine > 0) std::memmove(out + chunks.offset(rank), out, mine);
    receive_chunks();
  } else {
    receive_chunks();
    reduce_scatter_ring(inner, send, out + chunks.offset(rank), chunks, type, op);
  }
  receives.wait_all(step_label(ctx, "reduce reduce_scatter_gather gather at rank {}", root));
}

}  // namespace rcoll::collectives
