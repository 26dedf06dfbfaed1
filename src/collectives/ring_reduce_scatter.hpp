// Pipelined ring reduce-scatter, shared by ring allreduce (its first phase)
// and reduce_scatter ring (all of it, over any Blocks).
#pragma once

#include <cstddef>
#include <string_view>

#include "collectives/collectives.hpp"
#include "collectives/paced_sends.hpp"
#include "collectives/ring_allgather.hpp"

namespace rcoll::collectives {

// Where a ring reduce-scatter reads and writes. `input` is this rank's
// contribution, laid out like ring.buf. The partial sums of the chunks
// this rank forwards go to ring.buf (it may be `input` itself, then they
// overwrite it in place), or, with `slots` set, to slot (item mod
// slot_count) of ring.segment elements each, reused once its send has
// completed: slot_count must exceed the segments of any chunk
// (ring_reduce_scatter_slots). The complete chunk goes to `complete`,
// which may be its place in ring.buf or a buffer of its own.
struct RingReduceScatter {
  const std::byte* input = nullptr;
  int first_chunk = 0;           // the chunk this rank sends first (step 0), from `input`
  std::byte* complete = nullptr;  // receives chunk first_chunk + 1, the one this rank completes
  bool forward_complete = false;  // queue the complete chunk to the right as step size - 1
  std::string_view name;          // "allreduce ring reduce-scatter": the waits' labels
  std::byte* slots = nullptr;
  std::size_t slot_count = 0;
};

// Partial-sum slots enough for `ring`: one more than the most segments of
// any chunk, plus ctx.depth so that a rank does not wait on every slot.
std::size_t ring_reduce_scatter_slots(const Context& ctx, const Ring& ring);

// Chunk k travels the ring from rank k - first_chunk + rank (the rank that
// sends it first) and every rank adds its own part: step s (0 <= s < size -
// 1) receives chunk first_chunk - s - 1 from the left into scratch slots
// (ctx.depth of ring.segment elements), reduces it with `input` and queues
// the sum for the right as step s + 1; the last step's sum is complete and
// goes to rs.complete. Every send goes through `sends` (which reads
// `input` and ring.buf until the caller's wait_all); the receives are a
// RecvWindow of ctx.depth with `sends` as its hook. Uses tag steps 0 ..
// size - 2 (size - 1 too with forward_complete).
void ring_reduce_scatter(const Context& ctx, const Ring& ring, const RingReduceScatter& rs, DataType type,
                         ReduceOp op, PacedSends& sends);

}  // namespace rcoll::collectives
