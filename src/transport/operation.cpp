#include "transport/operation.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "transport/driving.hpp"

namespace rcoll::transport {

// Lets the driving functions below reach an operation's private state.
class OperationAccess {
 public:
  static fiber::Fiber& fiber(Operation& o) noexcept { return o.fiber_; }
  static bool& cancelled(Operation& o) noexcept { return o.cancelled_; }
  static bool cancelled(const Operation& o) noexcept { return o.cancelled_; }
  static WaitScope& scope(Operation& o) noexcept { return o.scope_; }
  static Transport*& waiting_on(Operation& o) noexcept { return o.waiting_on_; }
};

namespace {

using Access = OperationAccess;

// Per thread: operations never move between threads.
thread_local Operation* running = nullptr;
thread_local std::vector<Operation*> suspended;
thread_local std::uint64_t moved_count = 0;

void forget(Operation* operation) noexcept {
  suspended.erase(std::remove(suspended.begin(), suspended.end(), operation), suspended.end());
}

// Runs `operation` until it yields or ends, with its own wait scope and as
// the current operation; the caller's are back afterwards.
void run(Operation& operation) {
  Operation* outer = std::exchange(running, &operation);
  const WaitScope caller_scope = exchange_wait_scope(Access::scope(operation));
  forget(&operation);
  Access::fiber(operation).resume();
  Access::scope(operation) = exchange_wait_scope(caller_scope);
  running = outer;
  if (!operation.finished()) suspended.push_back(&operation);
}

}  // namespace

Operation::Operation(Transport& transport, std::function<void()> body)
    : transport_(transport), fiber_(std::move(body)) {}

// Only an unfinished operation is on the suspended list (run() keeps it
// there), so once cancel() has finished it nothing refers to it.
Operation::~Operation() { cancel(); }

void Operation::cancel() noexcept {
  if (!fiber_.started() || fiber_.finished()) return;
  cancelled_ = true;
  // Its pending wait throws; the body unwinds. A body that catches the
  // error and waits again is told the same until it ends.
  while (!fiber_.finished()) {
    try {
      run(*this);
    } catch (...) {  // run() itself does not throw what the body throws
    }
  }
}

OperationPtr start(Transport& transport, std::function<void()> body) {
  auto operation = std::make_shared<Operation>(transport, std::move(body));
  run(*operation);
  return operation;
}

bool drive_once(Transport& transport) {
  const bool moved = driving::progress(transport);
  driving::resume_suspended();
  return moved;
}

std::size_t suspended_operations() noexcept { return suspended.size(); }

namespace driving {

Operation* current() noexcept { return running; }

bool cancelled(const Operation& operation) noexcept { return Access::cancelled(operation); }

void suspend(Operation& operation, Transport& transport) {
  Access::waiting_on(operation) = &transport;
  fiber::Fiber::yield();
  Access::waiting_on(operation) = nullptr;
}

bool any_suspended() noexcept { return !suspended.empty(); }

void resume_suspended() {
  if (suspended.empty()) return;
  // A snapshot: a resumed operation may start or end others.
  const std::vector<Operation*> now = suspended;
  for (Operation* operation : now)
    if (std::find(suspended.begin(), suspended.end(), operation) != suspended.end()) run(*operation);
}

bool progress(Transport& transport) {
  bool moved = transport.progress();
  for (std::size_t i = 0; i < suspended.size(); ++i) {
    Transport* other = Access::waiting_on(*suspended[i]);
    if (other == nullptr || other == &transport) continue;
    // Each other transport once, however many operations wait on it.
    bool seen = false;
    for (std::size_t j = 0; j < i && !seen; ++j) seen = Access::waiting_on(*suspended[j]) == other;
    if (!seen) moved = other->progress() || moved;
  }
  if (moved) ++moved_count;
  return moved;
}

std::uint64_t generation() noexcept { return moved_count; }

bool waits_elsewhere(const Transport& transport) noexcept {
  return std::any_of(suspended.begin(), suspended.end(), [&](Operation* o) {
    const Transport* t = Access::waiting_on(*o);
    return t != nullptr && t != &transport;
  });
}

}  // namespace driving
}  // namespace rcoll::transport
