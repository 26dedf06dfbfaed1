// Entry points of the collective algorithms. A collective is a schedule of
// isend/irecv/wait/reduce over the transport interface; nothing here knows
// which backend runs underneath.
//
// Preconditions (checked by the communicator before any call here): buffers
// are valid for count elements, dtype/op/root are valid, the algorithm is not
// `automatic`. Every rank calls the same entry with the same arguments.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "collectives/schedule.hpp"
#include "common/deadline.hpp"
#include "common/lazy_text.hpp"
#include "rcoll/options.hpp"
#include "rcoll/types.hpp"
#include "transport/transport.hpp"

namespace rcoll::collectives {

struct Context {
  transport::Transport& transport;
  // Unique per collective call on this communicator, the same on all ranks;
  // the low `step_bits` bits are free for the algorithm's own steps.
  transport::Tag tag_base;
  Deadline deadline;
  // Pipeline segment for large messages, in bytes (> 0).
  std::size_t segment_bytes;
  // Names the call in errors and logs, e.g. "allreduce #12 (4096 x float32)".
  LazyText label;
  // How binomial bcast trees place the ranks for messages up to the eager
  // limit (schedule.hpp); the same on every rank.
  TreeLayout tree_layout = TreeLayout::contiguous;
  // True when ranks of this communicator may share a core (all on one host,
  // more of them than its CPUs); the same on every rank. Pieces that let a
  // rank run ahead of its neighbour are then avoided (allreduce_ring.cpp).
  bool ranks_share_cores = false;

  static constexpr int step_bits = 24;
  int rank() const { return transport.rank(); }
  int size() const { return transport.size(); }
  transport::Tag tag(std::uint32_t step) const { return tag_base | (step & ((1u << step_bits) - 1)); }
};

void allreduce(const Context& ctx, AllreduceAlgo algo, const void* send, void* recv, std::size_t count,
               DataType type, ReduceOp op);
void bcast(const Context& ctx, BcastAlgo algo, void* buf, std::size_t bytes, int root);
void barrier(const Context& ctx);

// Algorithm choice by message size and world size (cost model in
// docs/PERFORMANCE.md) with the FALLBACK link estimates of the transport
// (fallback_link_cost). The communicator instead reads a ChoiceTable
// (choose.hpp) built once from the measured link (calibration.hpp).
AllreduceAlgo choose_allreduce(std::size_t bytes, int size, const transport::Capabilities& caps);
BcastAlgo choose_bcast(std::size_t bytes, int size, const transport::Capabilities& caps);
// What the two functions above choose on `size` ranks, as printable lines
// "from .. to  algorithm" per collective, with the model's constants.
std::string describe_choices(int size, const transport::Capabilities& caps);

}  // namespace rcoll::collectives
