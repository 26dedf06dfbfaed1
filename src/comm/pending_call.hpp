// One non-blocking call in flight (Comm::iallreduce, isend, ...): what the
// public rcoll::Request holds and the communicator keeps a list of.
//
// The call runs as an operation (transport/operation.hpp): the same body a
// blocking call runs, on a fiber, driven by every wait of its thread. It
// is settled once its operation has finished and the communicator has
// handled its outcome as a blocking call's (a TimeoutError or IoError
// breaks the communicator: comm_impl.hpp); `error` then holds what the
// caller is told. A communicator that breaks down, or is destroyed, cancels
// and settles every call it still has.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common/deadline.hpp"
#include "diagnostics/call_info.hpp"
#include "diagnostics/call_watch.hpp"
#include "transport/operation.hpp"

namespace rcoll::comm {

class CommImpl;

struct PendingCall {
  PendingCall(const diagnostics::CallInfo& call_info, Deadline call_deadline, CommImpl& owner)
      : call(call_info), deadline(call_deadline), comm(&owner) {}
  PendingCall(const PendingCall&) = delete;
  PendingCall& operator=(const PendingCall&) = delete;

  const diagnostics::CallInfo call;
  const Deadline deadline;
  CommImpl* comm;  // null once the communicator is gone
  std::vector<std::vector<std::size_t>> kept;  // a v-variant's counts and displacements (CallArrays)
  std::optional<diagnostics::CallWatch> watch;  // the operation's wait observer
  std::size_t received = 0;                     // irecv: elements received
  bool settled = false;
  std::exception_ptr error;  // set when settled with an error
  // Request::notify_when_done: called once when the body has ended
  // (finished, failed or cancelled), on the thread that ran it.
  bool body_ended = false;
  std::function<void()> notify;
  // Declared last: destroyed first, so a cancelled body still finds the rest.
  transport::OperationPtr operation;
};

using PendingCallPtr = std::shared_ptr<PendingCall>;

// The first thing a call's body holds, so that however the body ends
// (returns, throws, is cancelled) the call is marked and `notify` is told.
struct BodyEnd {
  explicit BodyEnd(PendingCall* ended) noexcept : call(ended) {}
  BodyEnd(const BodyEnd&) = delete;
  BodyEnd& operator=(const BodyEnd&) = delete;
  ~BodyEnd() {
    call->body_ended = true;
    if (auto notify = std::exchange(call->notify, nullptr)) notify();
  }
  PendingCall* call;
};

}  // namespace rcoll::comm
