// Detects two threads calling one communicator at once, which the
// threading contract forbids (docs/THREADING.md): the transport, the call
// counters and the requests are not thread-safe, and overlapping calls
// used to crash inside the transport or hang. Every public call holds the
// guard for its whole duration (CallGuard::Scope); a second caller finds
// it taken and gets InvalidArgument naming both calls, while the first
// call goes on untouched.
//
// The cost is one compare-and-swap to enter and one store to leave, on a
// word no other thread writes while the communicator is used correctly.
#pragma once

#include <atomic>
#include <cstdint>

#include "diagnostics/call_info.hpp"

namespace rcoll::comm {

class CallGuard {
 public:
  // Holds the guard for one call of `kind` by `rank`; throws InvalidArgument
  // "rank R: allreduce called while bcast (call #12) is still running on
  // another thread; ..." when another call holds it.
  class Scope {
   public:
    Scope(CallGuard& guard, int rank, diagnostics::CallKind kind);
    ~Scope() { guard_.current_.store(0, std::memory_order_release); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    CallGuard& guard_;
  };

  // True while a call holds the guard (for tests that must know a call is in progress).
  bool busy() const noexcept { return current_.load(std::memory_order_acquire) != 0; }

 private:
  // 0: no call. Else (call number << 8) | kind; the number is 0 for the
  // instant between taking the guard and numbering the call.
  std::atomic<std::uint64_t> current_{0};
  // Public calls made on this communicator; written only by the holder.
  std::uint64_t calls_ = 0;
};

}  // namespace rcoll::comm
