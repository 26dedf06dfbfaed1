#include "transport/wait.hpp"

#include <sched.h>

#include <algorithm>
#include <string>
#include <vector>

#include "rcoll/errors.hpp"
#include "transport/truncation.hpp"

namespace rcoll::transport {
namespace {

// Spinning first keeps small-message latency at microseconds; blocking after
// keeps oversubscribed hosts (more ranks than cores) usable. See docs/THREADING.md.
constexpr auto spin_budget = std::chrono::microseconds(50);
constexpr auto block_slice = std::chrono::microseconds(20000);
constexpr unsigned check_every = 8;  // idle spins per clock read and yield

// initial-exec: every call sets these, and the default model for a shared
// library costs a __tls_get_addr call per access. The library is linked,
// not dlopen'ed, and the two fit in any static TLS reserve.
[[gnu::tls_model("initial-exec")]] thread_local WaitObserver* current_observer = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local SpinMode current_spin = SpinMode::yield;

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
  std::vector<int> peers = pending_peers(requests);
  std::string list;
  for (int p : peers) list += (list.empty() ? "" : ", ") + std::to_string(p);
  cancel_pending(transport, requests);
  throw TimeoutError("rank " + std::to_string(transport.rank()) + ": " + step.str() +
                         ": timed out waiting for rank(s) " + list,
                     std::move(peers));
}

// Rethrows a request's IoError with the caller's step in front of the
// transport's, so the error reads "allreduce ring step 3: tcp recv: ...".
// A TruncationError stays one (the communicator tells it apart).
[[noreturn]] void rethrow_with_step(const Request& failed, const LazyText& step) {
  try {
    failed.rethrow_if_failed();
  } catch (const TruncationError& e) {
    throw e.with_step(step.str());
  } catch (const IoError& e) {
    throw IoError(e.rank(), e.peer(), step.str() + ": " + e.step(), e.cause());
  }
  throw IoError(-1, failed.peer(), step.str(), "request failed without an error");
}

// Tells the observer; if it throws, the pending requests are withdrawn first.
void observe(WaitObserver& observer, Transport& transport, Deadline::Clock::time_point now,
             std::span<const RequestPtr> requests, const LazyText& step) {
  try {
    observer.blocking(now, requests, step);
  } catch (...) {
    cancel_pending(transport, requests);
    throw;
  }
}

}  // namespace

std::vector<int> pending_peers(std::span<const RequestPtr> requests) {
  std::vector<int> peers;
  for (const auto& r : requests)
    if (r && r->pending()) peers.push_back(r->peer());
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  return peers;
}

ScopedWaitObserver::ScopedWaitObserver(WaitObserver* observer, SpinMode spin) noexcept
    : previous_(current_observer), previous_spin_(current_spin) {
  current_observer = observer;
  current_spin = spin;
}

ScopedWaitObserver::~ScopedWaitObserver() {
  current_observer = previous_;
  current_spin = previous_spin_;
}

void wait_all(Transport& transport, std::span<const RequestPtr> requests, Deadline deadline, const LazyText& step,
              ProgressHook* hook) {
  // No clock read until something is still pending after a progress call:
  // small messages often complete inside isend/irecv or the first progress.
  // While idle, the clock is read (and the core yielded) only every
  // check_every spins: a clock read costs as much as a progress call that
  // finds nothing, and the spin is what notices the answer.
  constexpr auto not_spinning = Deadline::Clock::time_point::max();
  auto spin_until = not_spinning;  // set at the first idle clock read
  unsigned idle_spins = 0;
  while (true) {
    if (const Request* failed = first_failed(requests)) {
      cancel_pending(transport, requests);
      rethrow_with_step(*failed, step);
    }
    if (all_finished(requests)) return;
    if (transport.progress()) {
      if (hook != nullptr) hook->moved();
      spin_until = not_spinning;
      idle_spins = 0;
      continue;
    }
    if (++idle_spins % check_every != 0) continue;
    auto now = Deadline::Clock::now();
    if (now >= deadline.at()) throw_timeout(transport, requests, step);
    if (spin_until == not_spinning) spin_until = now + spin_budget;
    if (now < spin_until) {
      // A peer sharing our core (more ranks than cores) can only answer
      // when we let it run: without this, every wait burns the whole spin
      // budget before the peer gets the core.
      if (current_spin == SpinMode::yield) sched_yield();
      continue;
    }
    if (current_observer != nullptr) observe(*current_observer, transport, now, requests, step);
    auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline.remaining());
    transport.wait_for_activity(std::min(left + std::chrono::microseconds(1), block_slice));
  }
}

}  // namespace rcoll::transport
