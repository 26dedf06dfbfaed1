#include "transport/wait.hpp"

#include <sched.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rcoll/errors.hpp"
#include "transport/driving.hpp"
#include "transport/operation.hpp"
#include "transport/truncation.hpp"

namespace rcoll::transport {
namespace {

// Spinning first keeps small-message latency at microseconds; blocking after
// keeps oversubscribed hosts (more ranks than cores) usable. See docs/THREADING.md.
constexpr auto spin_budget = std::chrono::microseconds(50);
constexpr auto block_slice = std::chrono::microseconds(20000);
constexpr unsigned check_every = 8;  // idle spins per clock read and yield
// The longest block while an operation waits on another transport, which
// only the spinning driver progresses.
constexpr auto elsewhere_slice = std::chrono::microseconds(1000);

// Set by every call (the general TLS model: transport/request.cpp says why).
thread_local WaitObserver* current_observer = nullptr;
thread_local SpinMode current_spin = SpinMode::yield;

const Request* first_failed(std::span<const RequestPtr> requests) {
  for (const auto& r : requests)
    if (r && r->state() == Request::State::failed) return r.get();
  return nullptr;
}

bool all_finished(std::span<const RequestPtr> requests) {
  return std::none_of(requests.begin(), requests.end(), [](const RequestPtr& r) { return r && r->pending(); });
}

void cancel_pending(Transport& transport, std::span<const RequestPtr> requests) {
  for (const auto& r : requests)
    if (r && r->pending()) transport.cancel(*r);
}

[[noreturn]] void throw_timeout(Transport& transport, std::span<const RequestPtr> requests, const LazyText& step) {
  std::vector<int> peers = pending_peers(transport, requests);
  std::string list;
  for (int p : peers) list += (list.empty() ? "" : ", ") + std::to_string(p);
  cancel_pending(transport, requests);
  throw TimeoutError("rank " + std::to_string(transport.rank()) + ": " + step.str() +
                         ": timed out waiting for rank(s) " + list,
                     std::move(peers));
}

// Rethrows a request's IoError with the caller's step in front of the
// transport's, so the error reads "allreduce ring step 3: tcp recv: ...",
// and its rank and peer in `transport`'s numbering (a sub-transport's
// requests carry its base's; the cause's text keeps the base's), for
// a TruncationError too.
// A TruncationError stays one (the communicator tells it apart).
[[noreturn]] void rethrow_with_step(const Transport& transport, const Request& failed, const LazyText& step) {
  // The rank as the waiting transport numbers it (-1, unknown, stays).
  auto own = [&transport](const IoError& e) { return e.rank() < 0 ? e.rank() : transport.rank(); };
  try {
    failed.rethrow_if_failed();
  } catch (const TruncationError& e) {
    throw e.with_step(step.str(), own(e), transport.own_rank(e.peer()));
  } catch (const IoError& e) {
    throw IoError(own(e), transport.own_rank(e.peer()), step.str() + ": " + e.step(), e.cause());
  }
  throw IoError(-1, transport.own_rank(failed.peer()), step.str(), "request failed without an error");
}

// Tells the observer; if it throws, the pending requests are withdrawn first.
void observe(WaitObserver& observer, Transport& transport, Deadline::Clock::time_point now,
             std::span<const RequestPtr> requests, const LazyText& step) {
  try {
    observer.blocking(now, pending_peers(transport, requests), step);
  } catch (...) {
    cancel_pending(transport, requests);
    throw;
  }
}

// A wait's target for drive(): the requests of a blocking wait_all(), or an
// operation that a wait() on its request drives to its end.
class RequestsTarget {
 public:
  RequestsTarget(Transport& transport, std::span<const RequestPtr> requests, const LazyText& step)
      : transport_(transport), requests_(requests), step_(step) {}
  // True when every request has finished; throws the first failure.
  bool done() const {
    if (const Request* failed = first_failed(requests_)) {
      cancel_pending(transport_, requests_);
      rethrow_with_step(transport_, *failed, step_);
    }
    return all_finished(requests_);
  }
  [[noreturn]] void timeout() const { throw_timeout(transport_, requests_, step_); }
  void observe(WaitObserver& observer, Deadline::Clock::time_point now) const {
    transport::observe(observer, transport_, now, requests_, step_);
  }

 private:
  Transport& transport_;
  std::span<const RequestPtr> requests_;
  const LazyText& step_;
};

class OperationTarget {
 public:
  OperationTarget(const Transport& transport, std::span<const Operation* const> operations, const LazyText& step)
      : transport_(transport), operations_(operations), step_(step) {}
  bool done() const {
    return std::any_of(operations_.begin(), operations_.end(), [](const Operation* o) { return o->finished(); });
  }
  [[noreturn]] void timeout() const {
    throw TimeoutError("rank " + std::to_string(transport_.rank()) + ": " + step_.str() + ": timed out", {});
  }
  void observe(WaitObserver&, Deadline::Clock::time_point) const {}  // the operation's own waits report

 private:
  const Transport& transport_;
  std::span<const Operation* const> operations_;
  const LazyText& step_;
};

class WhileSuspendedTarget {
 public:
  explicit WhileSuspendedTarget(const std::function<bool()>& stop) : stop_(stop) {}
  bool done() const { return !driving::any_suspended() || stop_(); }
  [[noreturn]] void timeout() const { throw std::logic_error("drive_while_suspended: a deadline of never passed"); }
  void observe(WaitObserver&, Deadline::Clock::time_point) const {}  // the operations' own waits report

 private:
  const std::function<bool()>& stop_;
};

// The driver's loop: progress, the hook, the thread's suspended operations,
// then spin, yield and block until the target is done or the deadline.
// No clock read until something is still pending after a progress call:
// small messages often complete inside isend/irecv or the first progress.
// While idle, the clock is read (and the core yielded) only every
// check_every spins: a clock read costs as much as a progress call that
// finds nothing, and the spin is what notices the answer. Suspended
// operations are resumed after every progress that moved and at every
// clock read, so that their deadlines are checked while nothing moves.
template <typename Target>
void drive(Transport& transport, const Target& target, Deadline deadline, ProgressHook* hook) {
  constexpr auto not_spinning = Deadline::Clock::time_point::max();
  auto spin_until = not_spinning;  // set at the first idle clock read
  unsigned idle_spins = 0;
  while (true) {
    if (target.done()) return;
    if (driving::progress(transport)) {
      if (hook != nullptr) hook->moved();
      driving::resume_suspended();
      spin_until = not_spinning;
      idle_spins = 0;
      continue;
    }
    if (++idle_spins % check_every != 0) continue;
    driving::resume_suspended();
    auto now = Deadline::Clock::now();
    if (now >= deadline.at()) target.timeout();
    if (spin_until == not_spinning) spin_until = now + spin_budget;
    if (now < spin_until) {
      // A peer sharing our core (more ranks than cores) can only answer
      // when we let it run: without this, every wait burns the whole spin
      // budget before the peer gets the core.
      if (current_spin == SpinMode::yield) sched_yield();
      continue;
    }
    if (current_observer != nullptr) target.observe(*current_observer, now);
    auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline.remaining());
    // An operation waiting on another transport is only progressed here:
    // block briefly then.
    const auto slice = driving::waits_elsewhere(transport) ? elsewhere_slice : block_slice;
    transport.wait_for_activity(std::min(left + std::chrono::microseconds(1), slice));
  }
}

// wait_all() inside an operation: yield to the driver until done. The
// driver has called progress() before each resume; the hook hears of it.
void wait_in_operation(Operation& operation, Transport& transport, std::span<const RequestPtr> requests,
                       Deadline deadline, const LazyText& step, ProgressHook* hook) {
  const RequestsTarget target(transport, requests, step);
  auto seen = driving::generation();
  auto blocked_since = Deadline::Clock::time_point::max();
  // As if last observed a slice ago: the first observation may come at
  // once (time_point::min() here overflowed `now - observed`).
  auto observed = Deadline::Clock::now() - block_slice;
  while (!target.done()) {
    if (driving::cancelled(operation)) {
      cancel_pending(transport, requests);
      throw IoError(transport.rank(), -1, step.str(), "the operation was cancelled");
    }
    const auto now = Deadline::Clock::now();
    if (now >= deadline.at()) target.timeout();
    // Past the spin budget the wait counts as blocked: its observer hears
    // of it as a blocking wait_all's would, at most every block_slice.
    if (blocked_since == Deadline::Clock::time_point::max()) blocked_since = now;
    if (current_observer != nullptr && now - blocked_since >= spin_budget && now - observed >= block_slice) {
      observed = now;
      target.observe(*current_observer, now);
    }
    driving::suspend(operation, transport);
    if (driving::generation() != seen) {
      seen = driving::generation();
      if (hook != nullptr) hook->moved();
    }
  }
}

}  // namespace

std::vector<int> pending_peers(const Transport& transport, std::span<const RequestPtr> requests) {
  std::vector<int> peers;
  for (const auto& r : requests)
    if (r && r->pending()) peers.push_back(transport.own_rank(r->peer()));
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  return peers;
}

WaitScope exchange_wait_scope(WaitScope scope) noexcept {
  const WaitScope previous{current_observer, current_spin};
  current_observer = scope.observer;
  current_spin = scope.spin;
  return previous;
}

ScopedWaitObserver::ScopedWaitObserver(WaitObserver* observer, SpinMode spin) noexcept
    : previous_(exchange_wait_scope({observer, spin})) {}

ScopedWaitObserver::~ScopedWaitObserver() { exchange_wait_scope(previous_); }

void wait_all(Transport& transport, std::span<const RequestPtr> requests, Deadline deadline, const LazyText& step,
              ProgressHook* hook) {
  if (Operation* operation = driving::current())
    return wait_in_operation(*operation, transport, requests, deadline, step, hook);
  drive(transport, RequestsTarget(transport, requests, step), deadline, hook);
}

void drive_until(const Operation& operation, Deadline deadline, const LazyText& step) {
  const Operation* one[] = {&operation};
  drive_until_any(one, deadline, step);
}

void drive_until_any(std::span<const Operation* const> operations, Deadline deadline, const LazyText& step) {
  if (operations.empty()) return;
  Transport& transport = operations.front()->transport();
  drive(transport, OperationTarget(transport, operations, step), deadline, nullptr);
}

void drive_while_suspended(Transport& transport, const std::function<bool()>& stop) {
  drive(transport, WhileSuspendedTarget(stop), Deadline::never(), nullptr);
}

}  // namespace rcoll::transport
