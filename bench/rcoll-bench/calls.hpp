// The one call of options.op the runner times and checks, with the
// buffers a RankPlan gives this rank.
#pragma once

#include <cstddef>

#include <rcoll/rcoll.hpp>

#include "buffers.hpp"
#include "options.hpp"

namespace rcoll::bench {

// The send and recv arguments of the call: the given buffers where the
// plan has them, rcoll::in_place where it passes that, else nullptr.
struct CallBuffers {
  const void* send = nullptr;
  void* recv = nullptr;
};
CallBuffers call_buffers(const RankPlan& plan, BenchOp op, void* send, void* recv) noexcept;

// Collective: calls options.op on `comm` with count `block` (layout.hpp).
// An in-place allreduce (send == rcoll::in_place) uses its one-buffer form.
void run_call(Comm& comm, const BenchOptions& options, std::size_t block, const CallBuffers& buffers);

}  // namespace rcoll::bench
