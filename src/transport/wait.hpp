// Waiting on requests: spin on progress() briefly, then block in
// wait_for_activity(), until done or the deadline passes.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/deadline.hpp"
#include "common/lazy_text.hpp"
#include "transport/transport.hpp"

namespace rcoll::transport {

// Told by a wait, on the waiting thread, each time a progress() call moved
// something (a send may have completed). It may post new requests on the
// same transport: a pipeline that keeps a bounded number of sends in flight
// posts the next one while it waits for a receive.
class ProgressHook {
 public:
  virtual void moved() = 0;

 protected:
  ~ProgressHook() = default;
};

// Waits until no request is pending. On the first failed request: cancels
// the others and rethrows its IoError. At the deadline: cancels every pending
// request and throws TimeoutError naming `step` and the peers still pending.
// `step` is read only for an error (or by a WaitObserver). `hook` (may be
// null) is told of progress; it must not touch `requests`.
//
// Inside an operation (operation.hpp) it yields to the thread's driver
// instead of spinning or blocking, and throws IoError when the operation
// is cancelled. Outside, it is the driver: while it waits it also drives
// the thread's suspended operations.
void wait_all(Transport& transport, std::span<const RequestPtr> requests, Deadline deadline, const LazyText& step,
              ProgressHook* hook = nullptr);

inline void wait(Transport& transport, const RequestPtr& request, Deadline deadline, const LazyText& step,
                 ProgressHook* hook = nullptr) {
  wait_all(transport, std::span<const RequestPtr>(&request, 1), deadline, step, hook);
}

// The sorted, distinct peers of the requests still pending, in
// `transport`'s numbering (Transport::own_rank).
std::vector<int> pending_peers(const Transport& transport, std::span<const RequestPtr> requests);

// Told about the waits of one thread while they block. The communicator
// installs one per call (ScopedWaitObserver) for the hang diagnosis and
// status reports. wait_all calls it only on its blocking path, after the
// spin budget and before each wait_for_activity() (so at least every 20 ms
// while blocked), never when requests complete while spinning. It may
// throw (the wait then cancels its requests, like at a timeout).
// `pending_peers`: those of the wait's requests still pending
// (pending_peers()).
class WaitObserver {
 public:
  virtual void blocking(Deadline::Clock::time_point now, std::span<const int> pending_peers,
                        const LazyText& step) = 0;

 protected:
  ~WaitObserver() = default;
};

// How a wait spins before it blocks. `yield` calls sched_yield() every few
// idle spins, so that a rank sharing our core can answer during the spin;
// `pure` makes no system call, for a rank with a core of its own (a
// yield there only delays noticing the answer). Waits outside a
// ScopedWaitObserver use `yield`.
enum class SpinMode : std::uint8_t { yield, pure };

// The observer and spin mode of whatever runs on this thread: a blocking
// call, or an operation (operation.hpp), which keeps its own while
// suspended.
struct WaitScope {
  WaitObserver* observer = nullptr;
  SpinMode spin = SpinMode::yield;
};
// Installs `scope` on this thread and returns the one it replaces.
WaitScope exchange_wait_scope(WaitScope scope) noexcept;

// Makes `observer` (null: none) and `spin` the current thread's until
// destroyed; then the previous ones are back.
class ScopedWaitObserver {
 public:
  explicit ScopedWaitObserver(WaitObserver* observer, SpinMode spin = SpinMode::yield) noexcept;
  ~ScopedWaitObserver();
  ScopedWaitObserver(const ScopedWaitObserver&) = delete;
  ScopedWaitObserver& operator=(const ScopedWaitObserver&) = delete;

 private:
  WaitScope previous_;
};

}  // namespace rcoll::transport
