// A non-blocking call in flight: what Comm's i-calls (iallreduce, ibcast,
// isend, irecv, ...) return.
//
// The call is issued when the i-call returns: it has run until its first
// wait, and it moves on whenever this thread waits on the same
// communicator: in test(), wait(), wait_all(), wait_any(), or in any
// blocking call. Its buffers belong to the call until it completes; its
// counts and displacements arrays are copied and may be freed at once.
// Its deadline (the call's CallOptions::timeout, else the communicator's)
// runs from the issue.
//
// Several calls may be outstanding on one communicator; every rank must
// issue the collectives in the same order (as in MPI), and each completes
// on its own. Errors are those of the blocking forms, raised by the test()
// or wait() that finds the call complete: a TimeoutError or IoError
// breaks the communicator as it would in a blocking call, and its other
// outstanding calls then fail with "communicator is unusable after an
// earlier failure: ...".
//
// A Request is active from its i-call until a test() that returns true or
// a wait() (also one that throws) reports the completion. Destroying an
// active Request whose call has not finished, or the communicator while
// calls are outstanding, breaks the communicator down: a peer may be
// waiting for this rank's part of the call, which would never come, so it
// fails at once instead, naming the reason. Requests are used on the
// thread of their communicator (docs/THREADING.md).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>

namespace rcoll {

namespace comm {
struct PendingCall;
}

class Request {
 public:
  // An inactive request: test() is true and wait() returns at once.
  Request() noexcept;
  explicit Request(std::shared_ptr<comm::PendingCall> call) noexcept;
  Request(Request&& other) noexcept;
  // Assigning over an active request first destroys it (see above).
  Request& operator=(Request&& other) noexcept;
  ~Request();

  bool active() const noexcept { return call_ != nullptr; }
  // Moves the communicator's calls on without blocking; true once this
  // call is complete (the request is then inactive). Throws the call's error.
  bool test();
  // Returns once the call is complete; throws its error. The request is
  // inactive afterwards.
  void wait();
  // Calls `notify` once, when the call has done its work (finished, failed
  // or was cancelled): at once when it has already, else on the thread that
  // drives it (the progress thread with Options::progress = thread, which
  // drives it without anyone waiting). For waking a thread that then calls
  // test(), which settles the call and reports its outcome: `notify` runs
  // inside rcoll, so it must be quick, must not throw and must not call
  // rcoll. Replaces an earlier notify; a no-op on an inactive request.
  void notify_when_done(std::function<void()> notify);
  // For an irecv that completed: the number of elements received. 0 otherwise.
  std::size_t count() const noexcept { return received_; }

 private:
  friend std::size_t wait_any(std::span<Request> requests);
  // The call settled: keep its result, become inactive, throw its error.
  void complete();
  // Drops the call; one still pending is abandoned (see above).
  void release() noexcept;

  std::shared_ptr<comm::PendingCall> call_;
  std::size_t received_ = 0;
};

// Waits for every request (also after one failed, so that none is left
// outstanding), then throws the first error met, in order.
void wait_all(std::span<Request> requests);
// Waits until one active request completes and returns its index, or
// requests.size() when none is active. That request is then inactive; its
// error is thrown. The active requests must belong to one communicator
// (else InvalidArgument).
std::size_t wait_any(std::span<Request> requests);

}  // namespace rcoll
