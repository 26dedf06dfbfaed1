// What one call on a communicator is: its kind, sequence number and
// arguments. Filling one costs a few stores; the text forms (labels for
// errors, descriptions for the hang diagnosis and RCOLL_CHECK) are made only
// when something reads them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "rcoll/types.hpp"

namespace rcoll::diagnostics {

enum class CallKind : std::uint8_t {
  none,
  allreduce,
  bcast,
  barrier,
  send,
  recv,
  reduce,
  allgather,
  allgatherv,
  reduce_scatter,
  reduce_scatter_v,
  alltoall,
  alltoallv,
  gather,
  gatherv,
  scatter,
  scatterv,
  create_group,  // Comm::create_group: local work and the caller's store
};

std::string_view to_string(CallKind kind) noexcept;

// CallInfo::counts_hash of a v-variant (FNV-1a over the counts, then the
// displacements); never 0.
std::uint64_t hash_counts(std::span<const std::size_t> counts, std::span<const std::size_t> displs) noexcept;

struct CallInfo {
  CallKind kind = CallKind::none;
  std::uint64_t sequence = 0;  // collectives: the communicator's call number
  std::size_t count = 0;
  DataType type = DataType::uint8;
  ReduceOp op = ReduceOp::sum;  // allreduce, reduce, reduce_scatter(_v) only
  int peer = -1;                // bcast, reduce, gather(v), scatter(v): root; send: destination; recv: source
  int tag = 0;                  // send and recv
  // The v-variants: a hash of the per-rank counts (and displacements) that
  // every rank must agree on, for RCOLL_CHECK; 0 otherwise.
  std::uint64_t counts_hash = 0;

  static CallInfo allreduce(std::uint64_t sequence, std::size_t count, DataType type, ReduceOp op) {
    return {CallKind::allreduce, sequence, count, type, op, -1, 0};
  }
  static CallInfo bcast(std::uint64_t sequence, std::size_t count, DataType type, int root) {
    return {CallKind::bcast, sequence, count, type, ReduceOp::sum, root, 0};
  }
  static CallInfo barrier(std::uint64_t sequence) { return {CallKind::barrier, sequence}; }
  // The collectives of the MPI-style set; `count` is what the plan is
  // keyed by, in elements (collectives.hpp, costs.hpp). `root` -1 and
  // `op` sum where the call has none.
  static CallInfo collective_call(CallKind kind, std::uint64_t sequence, std::size_t count, DataType type,
                                  ReduceOp op, int root, std::uint64_t counts_hash = 0) {
    return {kind, sequence, count, type, op, root, 0, counts_hash};
  }
  static CallInfo point_to_point(CallKind kind, std::size_t count, DataType type, int peer, int tag) {
    return {kind, 0, count, type, ReduceOp::sum, peer, tag};
  }

  bool collective() const noexcept { return kind != CallKind::none && kind != CallKind::send && kind != CallKind::recv; }
  bool has_op() const noexcept {
    return kind == CallKind::allreduce || kind == CallKind::reduce || kind == CallKind::reduce_scatter ||
           kind == CallKind::reduce_scatter_v;
  }
  bool has_root() const noexcept {
    return kind == CallKind::bcast || kind == CallKind::reduce || kind == CallKind::gather ||
           kind == CallKind::gatherv || kind == CallKind::scatter || kind == CallKind::scatterv;
  }
  // "allreduce (4096 x float32, sum)", "bcast (16 x float32, root 0)",
  // "barrier", "send to rank 3 tag 7", "recv from rank 1 tag 0".
  std::string describe() const;
  // describe() with the sequence number: "allreduce #12 (4096 x float32, sum)".
  std::string label() const;
};

}  // namespace rcoll::diagnostics
