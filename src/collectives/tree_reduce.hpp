// Pipelined binomial-tree reduce, shared by the tree allreduce (its first
// phase) and reduce binomial (all of it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectives/collectives.hpp"

namespace rcoll::collectives {

struct TreeReduce {
  const std::byte* input = nullptr;  // this rank's contribution, never written (unless it is `output`)
  // The result at the root; partial results at inner ranks. Null at a
  // non-root: its partial results go to ctx.depth scratch slots instead.
  std::byte* output = nullptr;
  std::size_t count = 0;    // elements
  std::size_t segment = 1;  // elements per piece (run_segment)
  int root = 0;
  std::uint32_t step = 0;  // the tag step of every message
  std::string_view name;   // "allreduce tree reduce": the waits' labels
};

// Binomial tree rooted at t.root (binomial_tree), pipelined in pieces: for
// each piece a rank combines its input with its children's partial results,
// smallest subtree first (so the root computes one fixed bracketing), and
// sends the sum to its parent, with at most ctx.depth sends pending. It
// posts ctx.depth pieces ahead from every child into scratch. Returns when
// every send has completed. count 0 sends nothing.
void binomial_reduce_segments(const Context& ctx, const TreeReduce& t, DataType type, ReduceOp op);

}  // namespace rcoll::collectives
