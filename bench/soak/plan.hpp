// The soak test's operation plan: a sequence of operations drawn from the
// seed. Every rank builds the same Planner and so draws the same sequence
// (kind, communicator, type, op, count, root, pairing): all ranks call the
// same collectives in the same order, as rcoll requires.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <rcoll/types.hpp>

#include "random.hpp"

namespace rcoll::soak {

enum class OpKind { allreduce, bcast, barrier, sendrecv };
inline constexpr int op_kinds = 4;
std::string to_string(OpKind kind);

struct Operation {
  std::uint64_t index = 0;   // position in the plan (warm-up operations too)
  OpKind kind = OpKind::barrier;
  int comm = 0;              // index into the communicator pool
  DataType type = DataType::uint8;
  ReduceOp op = ReduceOp::sum;
  std::size_t count = 0;     // elements
  bool in_place = false;     // allreduce
  int root = 0;              // bcast
  int tag = 0;               // sendrecv
  std::size_t spare = 0;     // sendrecv: receive capacity beyond count, in elements
  std::uint64_t seed = 0;    // this operation's data

  std::size_t bytes() const noexcept { return count * dtype_size(type); }
  // "allreduce #12 (comm 3, 4097 x float16, max, in place)"
  std::string describe() const;
};

// Send/recv pairing of one operation: ranks are paired through a shuffle
// drawn from the operation's seed; in each pair the first sends, then
// receives, and the second does the opposite (so no pair can deadlock).
struct Pairing {
  int partner = -1;          // -1: this rank sits the operation out
  bool sends_first = false;
};
Pairing pairing_of(const Operation& op, int world, int rank);

struct PlanLimits {
  int world = 1;
  int comms = 1;
  std::size_t max_bytes = 0;
};

class Planner {
 public:
  Planner(std::uint64_t seed, PlanLimits limits);
  // The next operation of the random mix.
  Operation next();
  // Operation of `kind` on communicator `comm` with `bytes` of data (warm-up).
  Operation sized(OpKind kind, int comm, std::size_t bytes, bool in_place);

 private:
  OpKind draw_kind();
  std::size_t draw_count(DataType type);
  Operation start(OpKind kind, int comm);

  Stream stream_;
  PlanLimits limits_;
  std::uint64_t index_ = 0;
};

// Payload bytes the job moves for `op` (allreduce/bcast: the message; send/
// recv: the sum over pairs; barrier: 0).
std::uint64_t payload_bytes(const Operation& op, int world);

}  // namespace rcoll::soak
