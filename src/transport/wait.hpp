// Waiting on requests: spin on progress() briefly, then block in
// wait_for_activity(), until done or the deadline passes.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "common/deadline.hpp"
#include "common/lazy_text.hpp"
#include "transport/transport.hpp"

namespace rcoll::transport {

// Waits until no request is pending. On the first failed request: cancels
// the others and rethrows its IoError. At the deadline: cancels every pending
// request and throws TimeoutError naming `step` and the peers still pending.
// `step` is read only for an error (or by a WaitObserver).
void wait_all(Transport& transport, std::span<const RequestPtr> requests, Deadline deadline, const LazyText& step);

inline void wait(Transport& transport, const RequestPtr& request, Deadline deadline, const LazyText& step) {
  wait_all(transport, std::span<const RequestPtr>(&request, 1), deadline, step);
}

// The sorted, distinct peers of the requests still pending.
std::vector<int> pending_peers(std::span<const RequestPtr> requests);

// Told about the waits of one thread while they block. The communicator
// installs one per call (ScopedWaitObserver) for the hang diagnosis and
// status reports. wait_all calls it only on its blocking path, after the
// spin budget and before each wait_for_activity() (so at least every 20 ms
// while blocked), never when requests complete while spinning. It may
// throw (the wait then cancels its requests, like at a timeout).
class WaitObserver {
 public:
  virtual void blocking(Deadline::Clock::time_point now, std::span<const RequestPtr> requests,
                        const LazyText& step) = 0;

 protected:
  ~WaitObserver() = default;
};

// Makes `observer` the current thread's WaitObserver until destroyed (then
// the previous one is back). Null: none.
class ScopedWaitObserver {
 public:
  explicit ScopedWaitObserver(WaitObserver* observer) noexcept;
  ~ScopedWaitObserver();
  ScopedWaitObserver(const ScopedWaitObserver&) = delete;
  ScopedWaitObserver& operator=(const ScopedWaitObserver&) = delete;

 private:
  WaitObserver* previous_;
};

}  // namespace rcoll::transport
