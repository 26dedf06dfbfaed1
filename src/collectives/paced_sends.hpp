// Sends posted in order with at most `bound` pending at once. The others
// wait here, merged into runs of adjacent, equal-sized segments, so a
// pipeline that has produced a whole chunk ahead of a slow receiver holds
// a few entries per step instead of one per segment (requests.hpp says why
// that matters).
//
// Queued sends are posted from moved(), which the waits of the same
// pipeline call (RecvWindow's hook) whenever the transport moved, so a
// rank blocked on a receive still feeds its neighbour. Why this cannot
// deadlock a pipeline whose receivers consume each link's messages in the
// order they are sent: the sends in flight are always the oldest not yet
// completed; the oldest message the receiver has not consumed is either
// in flight (the receiver reaches it and posts for it) or queued behind
// sends it already consumed, which complete under this rank's progress
// and free the slot. A rank that instead waited for its oldest send
// before posting the next, outside its receive waits, could deadlock a
// ring: every rank blocked on a send whose receiver is blocked the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "collectives/collectives.hpp"
#include "transport/wait.hpp"

namespace rcoll::collectives {

class PacedSends final : public transport::ProgressHook {
 public:
  PacedSends(const Context& ctx, std::size_t bound);
  // Cancels the sends still in flight; the queued ones are never posted.
  ~PacedSends();
  PacedSends(const PacedSends&) = delete;
  PacedSends& operator=(const PacedSends&) = delete;

  // Queues isend(peer, ctx.tag(step), buf, bytes) behind every send queued
  // before it and posts what the bound allows. `buf` stays valid and
  // unchanged until wait_all() returns.
  void send(int peer, std::uint32_t step, const std::byte* buf, std::size_t bytes);
  // Forgets the finished sends and posts queued ones while fewer than the
  // bound are in flight. Throws the IoError of a send that failed (its
  // peer is gone): called from the waits on the pipeline's receives, this
  // ends them at once, where the receives alone (from another peer) would
  // wait until their deadline.
  void moved() override;
  // Waits until every queued send has been posted and has completed
  // (ctx.deadline), then forgets them.
  void wait_all(const LazyText& step);
  // Waits until the first `count` sends queued (since construction) have
  // completed, posting queued ones as the bound allows (ctx.deadline); their
  // buffers may then be reused. For a caller that recycles send buffers:
  // it must show that the receivers reach those sends while it waits
  // (ring_reduce_scatter.cpp does), since this wait is outside its receives.
  void wait_completed(std::size_t count, const LazyText& step);

 private:
  // `count` sends of `bytes` each to one peer with one tag, from
  // consecutive pieces of memory starting at `next`.
  struct Run {
    int peer;
    std::uint32_t step;
    const std::byte* next;
    std::size_t bytes;
    std::size_t count;
  };
  void note_peak() const noexcept;
  // Every send before this one (in queue order) has completed.
  std::size_t completed_prefix() const noexcept { return in_flight_.empty() ? posted_ : in_flight_order_.front(); }

  const Context& ctx_;
  std::size_t bound_;
  std::deque<Run> queued_;
  std::vector<transport::RequestPtr> in_flight_;  // at most bound_, oldest first
  std::vector<std::size_t> in_flight_order_;      // their places in queue order
  std::size_t posted_ = 0;
};

}  // namespace rcoll::collectives
