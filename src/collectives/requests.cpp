#include "collectives/requests.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "rcoll/errors.hpp"
#include "transport/wait.hpp"

namespace rcoll::collectives {
namespace {

// Destructors must not throw; a transport that fails to cancel is already broken.
void cancel_pending(transport::Transport& transport, const std::vector<transport::RequestPtr>& requests) noexcept {
  for (const auto& request : requests) {
    if (!request || !request->pending()) continue;
    try {
      transport.cancel(*request);
    } catch (...) {
    }
  }
}

}  // namespace

RequestList::~RequestList() { cancel_pending(ctx_.transport, requests_); }

void RequestList::send(int peer, std::uint32_t step, const void* buf, std::size_t bytes) {
  add(ctx_.transport.isend(peer, ctx_.tag(step), buf, bytes));
}

void RequestList::add(transport::RequestPtr request) {
  // Completed requests carry nothing worth keeping; dropping them keeps
  // long pipelines from scanning thousands of finished sends in every wait.
  // (Amortised: the threshold doubles with what is still pending.)
  if (requests_.capacity() == 0) requests_.reserve(first_capacity);  // one allocation for a small collective
  if (requests_.size() >= compact_at_) {
    std::erase_if(requests_, [](const transport::RequestPtr& r) {
      return r->state() == transport::Request::State::done;
    });
    compact_at_ = std::max<std::size_t>(64, 2 * requests_.size());
  }
  requests_.push_back(std::move(request));
}

void RequestList::wait_all(const LazyText& step) {
  transport::wait_all(ctx_.transport, requests_, ctx_.deadline, step);
  requests_.clear();
}

RecvWindow::RecvWindow(const Context& ctx, std::vector<RecvItem> items, std::size_t depth)
    : ctx_(ctx), items_(std::move(items)), requests_(items_.size()), depth_(std::max<std::size_t>(depth, 1)) {
  post_until(std::min(depth_, items_.size()));
}

RecvWindow::~RecvWindow() { cancel_pending(ctx_.transport, requests_); }

const RecvItem& RecvWindow::wait(std::size_t index, const LazyText& step) {
  if (index >= posted_) throw std::logic_error("RecvWindow: waiting for a receive that is not posted yet");
  transport::wait(ctx_.transport, requests_[index], ctx_.deadline, step);
  const std::size_t got = requests_[index]->bytes();
  requests_[index].reset();
  const RecvItem& item = items_[index];
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
  post_until(std::min(released_ + depth_, items_.size()));
}

void RecvWindow::post_until(std::size_t end) {
  for (; posted_ < end; ++posted_) {
    const RecvItem& item = items_[posted_];
    requests_[posted_] = ctx_.transport.irecv(item.peer, ctx_.tag(item.step), item.buf, item.bytes);
  }
}

}  // namespace rcoll::collectives
