// What every schedule is given: the transport, the call's tag space,
// deadline and label, and the plan's segment and depth for this call. A
// schedule is a sequence of isend/irecv/wait/reduce over the transport
// interface; nothing here knows which backend runs underneath, nor how the
// algorithm, segment and depth were chosen (src/tuning/).
//
// Preconditions (checked by the communicator before any schedule runs):
// buffers are valid for count elements, dtype/op/root are valid. Every
// rank runs the same schedule with the same arguments and Context fields
// (but the transport, which is its own).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/deadline.hpp"
#include "common/lazy_text.hpp"
#include "rcoll/types.hpp"
#include "transport/transport.hpp"

namespace rcoll::collectives {

struct Context {
  transport::Transport& transport;
  // Unique per collective call on this communicator, the same on all ranks;
  // the low `step_bits` bits are free for the algorithm's own steps.
  transport::Tag tag_base;
  Deadline deadline;
  // Pipeline pieces are at most this many bytes (> 0), cut as evenly as
  // the elements allow (schedule.hpp, segment_range).
  std::size_t segment_bytes;
  // Receives a pipeline posts ahead of the one it waits for, per upstream
  // link (>= 1 for the pipelined schedules; 0 for one that is not).
  std::size_t depth;
  // Names the call in errors and logs, e.g. "allreduce #12 (4096 x float32)".
  LazyText label;

  // Added to every step: a schedule built from other schedules runs each
  // part in a phase() of its own, so that a fast rank's messages of one
  // part never match a slow rank's receives of another.
  std::uint32_t first_step = 0;

  static constexpr int step_bits = 24;
  int rank() const { return transport.rank(); }
  int size() const { return transport.size(); }
  transport::Tag tag(std::uint32_t step) const {
    return tag_base | ((first_step + step) & ((1u << step_bits) - 1));
  }
  // This context for part `part` of a composed schedule: its steps moved
  // up by part * phase_steps (no schedule uses more steps than that).
  static constexpr std::uint32_t phase_steps = 1u << 20;
  Context phase(std::uint32_t part) const {
    Context c = *this;
    c.first_step += part * phase_steps;
    return c;
  }
};

// Where each rank's block lies in a buffer of per-rank blocks (allgather,
// reduce_scatter, alltoall, gather, scatter), in bytes. Uniform: every
// block is `each` elements and block r starts at r * each; else block r
// is counts[r] elements at displs[r] (the v-variants; the arrays have one
// entry per rank and outlive the call). `unit` is the element size.
struct Blocks {
  std::size_t each = 0;
  const std::size_t* counts = nullptr;
  const std::size_t* displs = nullptr;
  std::size_t unit = 1;

  bool uniform() const noexcept { return counts == nullptr; }
  std::size_t bytes(int r) const noexcept { return (counts != nullptr ? counts[r] : each) * unit; }
  std::size_t offset(int r) const noexcept {
    return (counts != nullptr ? displs[r] : each * static_cast<std::size_t>(r)) * unit;
  }
};

// The schedules' signatures, one per collective (algorithms.hpp declares
// the schedules; tuning/catalog.hpp lists them). Contracts per collective:
//
// reduce: recv (significant at root only) = op over all ranks of send;
//   send == recv is in place at the root.
// allgather: this rank's block (blocks.bytes(rank) bytes at `send`) ends
//   up at blocks.offset(rank) of every rank's recv; send ==
//   recv + blocks.offset(rank) is in place (nothing to copy).
// reduce_scatter: send holds every rank's block, consecutive in rank
//   order (blocks.offset(r) is the prefix sum of the counts); recv gets
//   op over all ranks of this rank's block. send == recv is in place:
//   the result is left at the start of the buffer (as MPI does).
// alltoall: block r of send (send_blocks) goes to rank r, and arrives at
//   block `rank` of r's recv (recv_blocks); send and recv do not overlap.
// gather: like allgather, with recv significant at root only; send ==
//   recv + blocks.offset(root) at the root is in place.
// scatter: block r of the root's send lands in rank r's recv (at the
//   root, recv == send + blocks.offset(root) is in place).
// gatherv, scatterv: as in MPI the counts and displacements are
//   significant at the root only. The root's schedule gets the v Blocks;
//   every other rank gets uniform Blocks whose `each` is its own count, so
//   a non-root rank's schedule may use blocks.bytes(rank) and nothing else
//   of them (the v-variants' schedules are the linear ones, which do).
using AllreduceSchedule = void (*)(const Context& ctx, const void* send, void* recv, std::size_t count,
                                   DataType type, ReduceOp op);
using BcastSchedule = void (*)(const Context& ctx, void* buf, std::size_t bytes, int root);
using ReduceSchedule = void (*)(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type,
                                ReduceOp op, int root);
using AllgatherSchedule = void (*)(const Context& ctx, const void* send, void* recv, const Blocks& blocks);
using ReduceScatterSchedule = void (*)(const Context& ctx, const void* send, void* recv, const Blocks& blocks,
                                       DataType type, ReduceOp op);
using AlltoallSchedule = void (*)(const Context& ctx, const void* send, const Blocks& send_blocks, void* recv,
                                  const Blocks& recv_blocks);
using GatherSchedule = void (*)(const Context& ctx, const void* send, void* recv, const Blocks& blocks, int root);
using ScatterSchedule = void (*)(const Context& ctx, const void* send, void* recv, const Blocks& blocks, int root);

// The one barrier algorithm (dissemination); nothing to do on one rank.
void barrier(const Context& ctx);

}  // namespace rcoll::collectives
