// What one call on a communicator is: its kind, sequence number and
// arguments. Filling one costs a few stores; the text forms (labels for
// errors, descriptions for the hang diagnosis and RCOLL_CHECK) are made only
// when something reads them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "rcoll/types.hpp"

namespace rcoll::diagnostics {

enum class CallKind : std::uint8_t { none, allreduce, bcast, barrier, send, recv };

std::string_view to_string(CallKind kind) noexcept;

struct CallInfo {
  CallKind kind = CallKind::none;
  std::uint64_t sequence = 0;  // collectives: the communicator's call number
  std::size_t count = 0;
  DataType type = DataType::uint8;
  ReduceOp op = ReduceOp::sum;  // allreduce only
  int peer = -1;                // bcast: root; send: destination; recv: source
  int tag = 0;                  // send and recv

  static CallInfo allreduce(std::uint64_t sequence, std::size_t count, DataType type, ReduceOp op) {
    return {CallKind::allreduce, sequence, count, type, op, -1, 0};
  }
  static CallInfo bcast(std::uint64_t sequence, std::size_t count, DataType type, int root) {
    return {CallKind::bcast, sequence, count, type, ReduceOp::sum, root, 0};
  }
  static CallInfo barrier(std::uint64_t sequence) { return {CallKind::barrier, sequence}; }
  static CallInfo point_to_point(CallKind kind, std::size_t count, DataType type, int peer, int tag) {
    return {kind, 0, count, type, ReduceOp::sum, peer, tag};
  }

  bool collective() const noexcept {
    return kind == CallKind::allreduce || kind == CallKind::bcast || kind == CallKind::barrier;
  }
  // "allreduce (4096 x float32, sum)", "bcast (16 x float32, root 0)",
  // "barrier", "send to rank 3 tag 7", "recv from rank 1 tag 0".
  std::string describe() const;
  // describe() with the sequence number: "allreduce #12 (4096 x float32, sum)".
  std::string label() const;
};

}  // namespace rcoll::diagnostics
