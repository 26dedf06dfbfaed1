// Operations: blocking code (a collective's schedule) run on a fiber
// (common/fiber.hpp) so that it does not block its caller; the machinery
// of non-blocking calls.
//
// start() runs the body on a new fiber of this thread until its first
// wait_all() finds requests pending; there the fiber yields instead of
// spinning, and the operation is suspended. Whoever waits on this thread
// drives it: a wait_all() outside every operation (a blocking call), or
// drive_once() / drive_until() (a test() / wait() on a request). Driving
// calls progress() on every transport a suspended operation waits on and
// resumes each suspended operation, which checks its requests and its
// deadline and yields again or goes on (wait.hpp).
//
// Contract:
// - An operation runs only on the thread that started it; it is driven
//   only from there.
// - finished() once the body returned or threw; rethrow_if_failed() then
//   rethrows what it threw (a TimeoutError, an IoError, ...).
// - cancel() ends a suspended operation: its pending wait cancels its
//   requests and throws IoError ("cancelled"), which unwinds the body (its
//   RAII cancels what else it posted). The operation is then finished.
// - Destroying an Operation that has not finished cancels it first.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "common/deadline.hpp"
#include "common/fiber.hpp"
#include "common/lazy_text.hpp"
#include "transport/transport.hpp"
#include "transport/wait.hpp"

namespace rcoll::transport {

class Operation {
 public:
  // Use start().
  Operation(Transport& transport, std::function<void()> body);
  ~Operation();
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  bool finished() const noexcept { return fiber_.finished(); }
  void rethrow_if_failed() const { fiber_.rethrow_if_failed(); }
  // Ends the operation if it has not finished (see the top). Never throws.
  void cancel() noexcept;

  Transport& transport() const noexcept { return transport_; }

 private:
  friend class OperationAccess;

  Transport& transport_;
  fiber::Fiber fiber_;
  bool cancelled_ = false;
  WaitScope scope_{};                // its observer and spin mode while it is not running
  Transport* waiting_on_ = nullptr;  // the transport of its pending wait
};

using OperationPtr = std::shared_ptr<Operation>;

// Starts `body` as an operation on `transport` and runs it to its first
// wait or its end. What the body throws stays in the operation.
OperationPtr start(Transport& transport, std::function<void()> body);

// One pass that never blocks: progress() on `transport` and on every
// transport a suspended operation of this thread waits on, then each
// suspended operation resumed once. True if a progress() call moved.
bool drive_once(Transport& transport);

// Drives until `operation` has finished, spinning then blocking as
// wait_all() does. At the deadline: TimeoutError naming `step` (the
// operation itself keeps running; its own deadline ends it). Rethrows
// nothing of the operation's: call rethrow_if_failed().
void drive_until(const Operation& operation, Deadline deadline, const LazyText& step);

// The same for several operations on one transport: returns once any of
// them has finished (at once when one has, or when there are none).
void drive_until_any(std::span<const Operation* const> operations, Deadline deadline, const LazyText& step);

// For a progress thread (comm/progress_thread.hpp): drives this thread's
// suspended operations, spinning then blocking as wait_all() does, until
// none is left or `stop()` is true. `transport` is the one they all reach
// (a sub-transport's base); its wake() ends a block early, so that `stop`
// is looked at again at once.
void drive_while_suspended(Transport& transport, const std::function<bool()>& stop);

// The suspended operations of this thread.
std::size_t suspended_operations() noexcept;

}  // namespace rcoll::transport
