// Reduce for large vectors (Rabenseifner's): a reduce_scatter of the
// vector in n near-equal chunks (ring_chunk) by recursive halving, then
// every rank sends its reduced chunk straight to the root. Each byte is
// reduced once and crosses about two links instead of lg of them:
// lg alpha + (n - 1)/n S (beta + gamma) for the halving, then alpha +
// (n - 1)/n S beta into the root.
//
// The chunks go through the Blocks interface, so the halving sees a
// reduce_scatter_v layout; it never writes the caller's send buffer out of
// place. Non-roots keep their chunk in scratch (their recv may be null);
// the root reduces its chunk into its place in recv and receives the
// others around it. In place at the root the halving works in the root's
// buffer and leaves the root's chunk at the start, moved to its place
// before the other chunks arrive.
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
  // The halving's waits name this algorithm too: "<call>: reduce reduce_scatter_gather: reduce_scatter ...".
  const auto label = [&ctx] {
    const std::string call = ctx.label.str();
    return (call.empty() ? "" : call + ": ") + "reduce reduce_scatter_gather";
  };
  // Two parts, each in a step range of its own: the halving, then the chunks to the root.
  Context inner = ctx.phase(0);
  inner.label = label;
  const Context gather = ctx.phase(1);
  if (rank != root) {
    Scratch chunk(mine);
    reduce_scatter_recursive_halving(inner, send, chunk.get(), chunks, type, op);
    if (mine == 0) return;
    RequestList request(gather);
    request.send(root, 0, chunk.get(), mine);
    request.wait_all(step_label(ctx, "reduce reduce_scatter_gather send to rank {}", root));
    return;
  }
  auto* out = static_cast<std::byte*>(recv);
  if (send == recv) {
    reduce_scatter_recursive_halving(inner, send, recv, chunks, type, op);
    if (mine > 0) std::memmove(out + chunks.offset(rank), out, mine);
  } else {
    reduce_scatter_recursive_halving(inner, send, out + chunks.offset(rank), chunks, type, op);
  }
  RequestList receives(gather);
  for (int k = 0; k < n; ++k)
    if (k != root && chunks.bytes(k) > 0)
      receives.add(ctx.transport.irecv(k, gather.tag(0), out + chunks.offset(k), chunks.bytes(k)));
  receives.wait_all(step_label(ctx, "reduce reduce_scatter_gather gather at rank {}", root));
}

}  // namespace rcoll::collectives
