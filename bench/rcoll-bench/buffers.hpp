// --check's serial reference: for one call, each rank computes on its own
// what its buffers hold before the call and what it must receive (from
// the inputs every rank derives the same way, patterns.hpp), then counts
// the elements that differ afterwards, changed send buffers included.
#pragma once

#include <cstddef>
#include <cstdint>

#include <rcoll/rcoll.hpp>

#include "options.hpp"
#include "pieces.hpp"

namespace rcoll::bench {

// One rank's side of one call of options.op with blocks of `block`
// elements (the call's count argument; layout.hpp), after the public
// API's contracts (include/rcoll/comm.hpp). Offsets and counts in elements.
struct RankPlan {
  // Elements of this rank's send and receive buffers; 0: the call gets no
  // buffer there (nullptr where the API ignores it, or rcoll::in_place).
  std::size_t send_count = 0;
  std::size_t recv_count = 0;
  // This rank passes rcoll::in_place: as recv for scatter (at the root),
  // as send for every other op (allreduce: its one-buffer form).
  bool in_place = false;
  // The send buffer's contents: written before the call, unchanged after.
  Pieces send;
  // Written into the receive buffer, zeroed first, before the call: the
  // input of an in-place call, the root's data for bcast.
  Pieces recv_input;
  // What the receive buffer must hold after the call; elements outside
  // these pieces (e.g. the rest of an in-place reduce_scatter's input)
  // are not checked.
  Pieces expected;
};

RankPlan plan_rank(const BenchOptions& options, int rank, int ranks, std::size_t block);

// Writes the plan's inputs: send's pieces; recv zeroed (a value no result
// contains), then recv_input. Buffers as large as the plan's counts.
void write_inputs(const RankPlan& plan, DataType type, void* send, void* recv);
// Wrong elements in recv plus changed elements in send.
std::uint64_t count_errors(const RankPlan& plan, DataType type, const void* send, const void* recv);

}  // namespace rcoll::bench
