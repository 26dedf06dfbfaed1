// What a communicator is doing, readable from another thread: the status
// reporter (status_report.hpp) reads it while the communicator's thread
// runs. The owner writes relaxed atomics at each call's start and end (a
// handful of plain stores); a reader may see fields of two neighbouring
// calls mixed, which is acceptable for a status line.
#pragma once

#include <atomic>
#include <cstdint>

#include "diagnostics/call_info.hpp"

namespace rcoll::diagnostics {

class CallState {
 public:
  enum class Phase : std::uint8_t { idle, in_call, completed, failed };
  struct Snapshot {
    Phase phase;
    CallInfo call;
  };

  explicit CallState(int rank) noexcept : rank_(rank) {}
  CallState(const CallState&) = delete;
  CallState& operator=(const CallState&) = delete;

  int rank() const noexcept { return rank_; }

  void enter(const CallInfo& call) noexcept {
    shape_.store(static_cast<std::uint64_t>(call.kind) | std::uint64_t(static_cast<std::uint8_t>(call.type)) << 8 |
                     std::uint64_t(static_cast<std::uint8_t>(call.op)) << 16 |
                     std::uint64_t(static_cast<std::uint32_t>(call.peer)) << 32,
                 std::memory_order_relaxed);
    count_.store(call.count, std::memory_order_relaxed);
    sequence_.store(call.sequence, std::memory_order_relaxed);
    tag_.store(call.tag, std::memory_order_relaxed);
    phase_.store(Phase::in_call, std::memory_order_release);
  }
  void leave(bool ok) noexcept { phase_.store(ok ? Phase::completed : Phase::failed, std::memory_order_release); }

  Snapshot snapshot() const noexcept {
    Snapshot s{phase_.load(std::memory_order_acquire), {}};
    std::uint64_t shape = shape_.load(std::memory_order_relaxed);
    s.call.kind = static_cast<CallKind>(shape & 0xff);
    s.call.type = static_cast<DataType>((shape >> 8) & 0xff);
    s.call.op = static_cast<ReduceOp>((shape >> 16) & 0xff);
    s.call.peer = static_cast<int>(static_cast<std::uint32_t>(shape >> 32));
    s.call.count = count_.load(std::memory_order_relaxed);
    s.call.sequence = sequence_.load(std::memory_order_relaxed);
    s.call.tag = tag_.load(std::memory_order_relaxed);
    return s;
  }

  // Status request `generation` is answered exactly once per communicator:
  // true for the first caller (the waiting thread or the reporter).
  bool claim(std::uint64_t generation) noexcept {
    std::uint64_t answered = answered_.load(std::memory_order_relaxed);
    while (answered < generation)
      if (answered_.compare_exchange_weak(answered, generation, std::memory_order_relaxed)) return true;
    return false;
  }
  bool answered(std::uint64_t generation) const noexcept {
    return answered_.load(std::memory_order_relaxed) >= generation;
  }

 private:
  const int rank_;
  std::atomic<Phase> phase_{Phase::idle};
  std::atomic<std::uint64_t> shape_{0};
  std::atomic<std::uint64_t> count_{0};
  std::atomic<std::uint64_t> sequence_{0};
  std::atomic<int> tag_{0};
  std::atomic<std::uint64_t> answered_{0};
};

}  // namespace rcoll::diagnostics
