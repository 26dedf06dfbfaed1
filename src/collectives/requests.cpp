#include "collectives/requests.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "rcoll/errors.hpp"
#include "transport/wait.hpp"

namespace rcoll::collectives {
namespace {

// Touched on every send (the general TLS model: transport/request.cpp says why).
thread_local BookkeepingPeak peak;

// Destructors must not throw; a transport that fails to cancel is already broken.
void cancel_one(transport::Transport& transport, const transport::RequestPtr& request) noexcept {
  if (!request || !request->pending()) return;
  try {
    transport.cancel(*request);
  } catch (...) {
  }
}

bool is_done(const transport::RequestPtr& r) { return r->state() == transport::Request::State::done; }

}  // namespace

BookkeepingPeak& bookkeeping_peak() noexcept { return peak; }

RequestList::~RequestList() {
  for (const auto& request : requests_) cancel_one(ctx_.transport, request);
}

void RequestList::send(int peer, std::uint32_t step, const void* buf, std::size_t bytes) {
  add(ctx_.transport.isend(peer, ctx_.tag(step), buf, bytes));
}

void RequestList::send_bounded(int peer, std::uint32_t step, const void* buf, std::size_t bytes, std::size_t bound,
                               const LazyText& label) {
  bound = std::max<std::size_t>(bound, 1);
  if (requests_.size() >= bound) compact();
  while (requests_.size() >= bound) {
    transport::wait(ctx_.transport, requests_.front(), ctx_.deadline, label);
    requests_.erase(requests_.begin());
  }
  send(peer, step, buf, bytes);
}

void RequestList::add(transport::RequestPtr request) {
  // Completed requests carry nothing worth keeping; dropping them keeps
  // long pipelines from scanning thousands of finished sends in every wait.
  // (Amortised: the threshold doubles with what is still pending.)
  if (requests_.capacity() == 0) requests_.reserve(first_capacity);  // one allocation for a small collective
  if (requests_.size() >= compact_at_) {
    compact();
    compact_at_ = std::max<std::size_t>(64, 2 * requests_.size());
  }
  requests_.push_back(std::move(request));
  peak.send_entries = std::max(peak.send_entries, requests_.size());
}

void RequestList::compact() { std::erase_if(requests_, is_done); }

void RequestList::wait_all(const LazyText& step) {
  transport::wait_all(ctx_.transport, requests_, ctx_.deadline, step);
  requests_.clear();
}

RecvWindow::RecvWindow(const Context& ctx, std::size_t count, RecvSource& source, std::size_t depth,
                       transport::ProgressHook* hook)
    : ctx_(ctx), count_(count), source_(source), hook_(hook), depth_(std::max<std::size_t>(depth, 1)) {
  slots_.resize(std::min(depth_, count_));
  peak.receive_slots = std::max(peak.receive_slots, slots_.size());
  post_until(slots_.size());
}

RecvWindow::~RecvWindow() {
  for (const Slot& s : slots_) cancel_one(ctx_.transport, s.request);
}

RecvItem RecvWindow::wait(std::size_t index, const LazyText& step) {
  if (index >= posted_ || index < released_)
    throw std::logic_error("RecvWindow: waiting for a receive that is not posted or already released");
  Slot& s = slot(index);
  transport::wait(ctx_.transport, s.request, ctx_.deadline, step, hook_);
  const std::size_t got = s.request->bytes();
  s.request.reset();
  const RecvItem& item = s.item;
  // Both ends cut the data by the same arithmetic; a shorter message means
  // they did not (different arguments or settings), and the rest of the
  // buffer would silently keep stale bytes. A longer one fails in the
  // transport as truncated; both break the communicator, like any failed
  // receive, so the ranks waiting on this one learn it at once.
  if (got != item.bytes)
    throw IoError(ctx_.rank(), item.peer, step.str(),
                  "expected " + std::to_string(item.bytes) + " bytes from rank " + std::to_string(item.peer) +
                      ", got " + std::to_string(got) +
                      " (the ranks cut the data differently: different arguments, or settings such as "
                      "RCOLL_SEGMENT_BYTES differing between ranks)");
  return item;
}

void RecvWindow::release() {
  ++released_;
  post_until(std::min(released_ + depth_, count_));
}

void RecvWindow::post_until(std::size_t end) {
  for (; posted_ < end; ++posted_) {
    Slot& s = slot(posted_);
    s.item = source_.next();
    s.request = ctx_.transport.irecv(s.item.peer, ctx_.tag(s.item.step), s.item.buf, s.item.bytes);
  }
}

}  // namespace rcoll::collectives
