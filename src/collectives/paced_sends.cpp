#include "collectives/paced_sends.hpp"

#include <algorithm>
#include <stdexcept>

#include "collectives/requests.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {

PacedSends::PacedSends(const Context& ctx, std::size_t bound) : ctx_(ctx), bound_(std::max<std::size_t>(bound, 1)) {
  in_flight_.reserve(bound_);
  in_flight_order_.reserve(bound_);
}

PacedSends::~PacedSends() {
  for (const auto& request : in_flight_) {
    if (!request->pending()) continue;
    try {  // destructors must not throw; a transport that fails to cancel is already broken
      ctx_.transport.cancel(*request);
    } catch (...) {
    }
  }
}

void PacedSends::send(int peer, std::uint32_t step, const std::byte* buf, std::size_t bytes) {
  if (!queued_.empty()) {
    Run& last = queued_.back();
    if (last.peer == peer && last.step == step && last.bytes == bytes &&
        last.next + last.bytes * last.count == buf) {
      ++last.count;
      moved();
      return;
    }
  }
  queued_.push_back({peer, step, buf, bytes, 1});
  moved();
}

void PacedSends::moved() {
  // The rest keep their order, oldest first.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < in_flight_.size(); ++i) {
    if (in_flight_[i]->state() == transport::Request::State::failed) {
      // A wait on a failed request rethrows its error at once, with the step.
      const transport::RequestPtr failed = in_flight_[i];
      transport::wait(ctx_.transport, failed, ctx_.deadline, step_label(ctx_, "send to rank {}", failed->peer()));
    }
    if (in_flight_[i]->state() == transport::Request::State::done) continue;
    if (kept != i) {
      in_flight_[kept] = std::move(in_flight_[i]);
      in_flight_order_[kept] = in_flight_order_[i];
    }
    ++kept;
  }
  in_flight_.resize(kept);
  in_flight_order_.resize(kept);
  while (in_flight_.size() < bound_ && !queued_.empty()) {
    Run& run = queued_.front();
    in_flight_.push_back(ctx_.transport.isend(run.peer, ctx_.tag(run.step), run.next, run.bytes));
    in_flight_order_.push_back(posted_++);
    run.next += run.bytes;
    if (--run.count == 0) queued_.pop_front();
  }
  note_peak();
}

void PacedSends::wait_all(const LazyText& step) {
  while (!queued_.empty()) {
    // A copy: moved() may drop the entry while the wait runs.
    const transport::RequestPtr oldest = in_flight_.front();
    transport::wait(ctx_.transport, oldest, ctx_.deadline, step, this);
    moved();
  }
  transport::wait_all(ctx_.transport, in_flight_, ctx_.deadline, step);
  in_flight_.clear();
  in_flight_order_.clear();
}

void PacedSends::wait_completed(std::size_t count, const LazyText& step) {
  moved();
  while (completed_prefix() < count) {
    if (in_flight_.empty()) throw std::logic_error("PacedSends::wait_completed: fewer sends queued than waited for");
    // A copy: moved() may drop the entry while the wait runs.
    const transport::RequestPtr oldest = in_flight_.front();
    transport::wait(ctx_.transport, oldest, ctx_.deadline, step, this);
    moved();
  }
}

void PacedSends::note_peak() const noexcept {
  auto& peak = bookkeeping_peak();
  peak.send_entries = std::max(peak.send_entries, in_flight_.size() + queued_.size());
}

}  // namespace rcoll::collectives
