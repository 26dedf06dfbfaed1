// The public Request (include/rcoll/request.hpp) over a PendingCall: every
// call that moves the communicator holds its call guard, as Comm's calls do.
#include "rcoll/request.hpp"

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "comm/comm_impl.hpp"
#include "comm/pending_call.hpp"
#include "common/log.hpp"
#include "rcoll/errors.hpp"

namespace rcoll {
namespace {

// The guard of the communicator behind an unsettled call.
comm::CallGuard::Scope guard(comm::PendingCall& call) {
  return comm::CallGuard::Scope(call.comm->call_guard(), call.comm->rank(), call.call.kind);
}

}  // namespace

Request::Request() noexcept = default;
Request::Request(std::shared_ptr<comm::PendingCall> call) noexcept : call_(std::move(call)) {}
Request::Request(Request&& other) noexcept
    : call_(std::exchange(other.call_, nullptr)), received_(std::exchange(other.received_, 0)) {}

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    release();
    call_ = std::exchange(other.call_, nullptr);
    received_ = std::exchange(other.received_, 0);
  }
  return *this;
}

Request::~Request() { release(); }

void Request::release() noexcept {
  if (!call_ || call_->settled || call_->comm == nullptr) {
    call_.reset();
    return;
  }
  try {
    auto scope = guard(*call_);
    comm::CommImpl& comm = *call_->comm;
    comm.on_progress_thread([&] { comm.abandon(*call_); });
  } catch (const std::exception& e) {
    // Another thread is in a call on the communicator (which the threading contract forbids).
    log::error("a request destroyed while pending could not reach its communicator: {}", e.what());
  }
  call_.reset();
}

void Request::complete() {
  std::shared_ptr<comm::PendingCall> call = std::exchange(call_, nullptr);
  received_ = call->received;
  if (call->error) std::rethrow_exception(call->error);
}

bool Request::test() {
  if (!call_) return true;
  if (!call_->settled) {
    auto scope = guard(*call_);
    comm::CommImpl& comm = *call_->comm;
    if (!comm.on_progress_thread([&] { return comm.test(*call_); })) return false;
  }
  complete();
  return true;
}

void Request::notify_when_done(std::function<void()> notify) {
  if (!call_) return;
  if (!call_->settled) {
    auto scope = guard(*call_);
    comm::CommImpl& comm = *call_->comm;
    // Set where the body runs, so that its end sees the notify or has been seen here.
    const bool ended = comm.on_progress_thread([&] {
      if (call_->body_ended) return true;
      call_->notify = std::move(notify);
      return false;
    });
    if (!ended) return;
  }
  notify();
}

void Request::wait() {
  Request* self = this;
  wait_any(std::span<Request>(self, 1));
}

void wait_all(std::span<Request> requests) {
  std::exception_ptr first;
  for (Request& request : requests) {
    try {
      request.wait();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

std::size_t wait_any(std::span<Request> requests) {
  std::vector<comm::PendingCall*> calls;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!requests[i].call_) continue;
    if (requests[i].call_->settled) {
      requests[i].complete();
      return i;
    }
    calls.push_back(requests[i].call_.get());
    index.push_back(i);
  }
  if (calls.empty()) return requests.size();
  comm::CommImpl* comm = calls.front()->comm;
  for (const comm::PendingCall* call : calls)
    if (call->comm != comm)
      throw InvalidArgument(
          "rank " + std::to_string(comm->rank()) +
          ": wait_any: the requests belong to different communicators; wait on each one's separately");
  std::size_t found = 0;
  {
    auto scope = guard(*calls.front());
    found = comm->on_progress_thread([&] { return comm->wait_any(calls); });
  }
  if (found == calls.size())  // cannot happen: wait_any settles one, at the latest past the deadlines
    throw IoError(comm->rank(), -1, "wait_any", "no request completed");
  requests[index[found]].complete();
  return index[found];
}

}  // namespace rcoll
