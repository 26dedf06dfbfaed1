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

  static constexpr int step_bits = 24;
  int rank() const { return transport.rank(); }
  int size() const { return transport.size(); }
  transport::Tag tag(std::uint32_t step) const { return tag_base | (step & ((1u << step_bits) - 1)); }
};

// The schedules' signatures, one per collective (algorithms.hpp declares
// the schedules; tuning/catalog.hpp lists them).
using AllreduceSchedule = void (*)(const Context& ctx, const void* send, void* recv, std::size_t count,
                                   DataType type, ReduceOp op);
using BcastSchedule = void (*)(const Context& ctx, void* buf, std::size_t bytes, int root);

// The one barrier algorithm (dissemination); nothing to do on one rank.
void barrier(const Context& ctx);

}  // namespace rcoll::collectives
