// CommImpl's issued calls after they are issued (comm_impl.hpp issue()):
// settling them, test and wait, and what happens to those still pending
// when their Request or the communicator goes away.
#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "comm/comm_impl.hpp"
#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "transport/operation.hpp"

namespace rcoll::comm {
namespace {

// wait() drives an operation until its deadline and this much longer: the
// operation's own wait times out at the deadline with the better error
// (the step and the peers it waited on); this is the net under it.
constexpr auto wait_grace = std::chrono::seconds(1);

Deadline with_grace(Deadline deadline) {
  return Deadline::after(std::chrono::duration_cast<std::chrono::milliseconds>(deadline.remaining()) + wait_grace);
}

}  // namespace

void CommImpl::settle_finished() {
  // Take the finished ones out first: settling one may break the
  // communicator down, which settles all the others.
  std::vector<PendingCallPtr> finished;
  std::erase_if(pending_, [&](const PendingCallPtr& pending) {
    if (!pending->operation->finished()) return false;
    finished.push_back(pending);
    return true;
  });
  for (const auto& pending : finished) settle(*pending);
}

void CommImpl::settle(PendingCall& pending) noexcept {
  pending.settled = true;
  pending.comm = nullptr;
  try {
    pending.operation->rethrow_if_failed();
  } catch (...) {
    pending.error = std::current_exception();
    // As a blocking call's error (fail()), unless an earlier failure broke
    // the communicator down already: that one is the reason.
    if (broken_reason_.empty()) {
      try {
        fail(pending.call);
      } catch (...) {
        pending.error = std::current_exception();
      }
    }
  }
  pending.operation.reset();  // its fiber stack goes back to the pool
}

void CommImpl::cancel_pending(const std::string& why) noexcept {
  std::vector<PendingCallPtr> calls = std::exchange(pending_, {});
  for (const auto& pending : calls) {
    pending->operation->cancel();
    pending->operation.reset();
    pending->settled = true;
    pending->comm = nullptr;
    try {
      pending->error = std::make_exception_ptr(IoError(rank(), -1, pending->call.label(), why));
    } catch (...) {
      pending->error = std::current_exception();  // std::bad_alloc: still an error
    }
  }
}

bool CommImpl::test(PendingCall& pending) {
  if (!pending.settled) {
    if (!pending.operation->finished()) transport::drive_once(*transport_);
    settle_finished();
  }
  return pending.settled;
}

std::size_t CommImpl::wait_any(std::span<PendingCall* const> calls) {
  auto settled = [&] {
    return std::find_if(calls.begin(), calls.end(), [](const PendingCall* c) { return c->settled; });
  };
  if (auto found = settled(); found != calls.end()) return static_cast<std::size_t>(found - calls.begin());
  std::vector<const transport::Operation*> operations;
  Deadline latest = calls.front()->deadline;
  for (const PendingCall* call : calls) {
    operations.push_back(call->operation.get());
    latest = call->deadline.at() > latest.at() ? call->deadline : latest;
  }
  auto label = [&] { return calls.front()->call.label(); };
  try {
    transport::drive_until_any(operations, with_grace(latest), LazyText(label));
  } catch (const TimeoutError&) {
    // Each operation's own deadline should have ended it first; end them now.
    for (const PendingCall* call : calls) call->operation->cancel();
  }
  settle_finished();
  auto found = settled();
  return found != calls.end() ? static_cast<std::size_t>(found - calls.begin()) : calls.size();
}

void CommImpl::abandon(PendingCall& pending) noexcept {
  try {
    settle_finished();
    if (pending.settled) {
      if (pending.error)
        log::warn("rank {}: {}: its request was destroyed unread; the call had failed", rank(), pending.call.label());
      return;
    }
    // Peers may wait for this rank's part, which will never come: they fail at once, naming this.
    break_down(-1, IoError(rank(), -1, pending.call.label(), "its request was destroyed while the call was pending"));
  } catch (...) {
    log::error("rank {}: a request was destroyed while pending, and breaking the communicator down failed", rank());
  }
}

}  // namespace rcoll::comm
