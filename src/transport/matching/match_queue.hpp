// Matching for the messages from one peer (transport.hpp's contract): the
// receives posted for it and the messages that arrived before their
// receive ("unexpected"), each served per tag in posting / arrival order.
// A message takes the oldest receive posted for its tag; a receive takes the
// oldest unexpected message of its tag, and waits in the queue only when
// there is none. Tags are independent.
//
// `Arrival` is the backend's record of an unexpected message: a stored eager
// payload, or a request to send (rendezvous) still awaiting its answer. The
// queue only orders records; what serving one means is the backend's.
// Serving matched pairs by the contract's rules: posted_receive.hpp.
//
// Per-message path: two flat queues (tag_queue.hpp), no allocation once
// they have grown, no virtual call. Not thread-safe.
#pragma once

#include <utility>

#include "transport/matching/posted_receive.hpp"
#include "transport/matching/tag_queue.hpp"

namespace rcoll::transport {

template <typename Arrival>
class MatchQueue {
 public:
  // --- a message of `tag` arrives
  // Moves the oldest receive posted for `tag` to `out`; false if none.
  bool take_posted(Tag tag, PostedReceive& out) { return posted_.take(tag, out); }
  // Keeps a message no receive was posted for, behind the older ones.
  void keep(Tag tag, Arrival arrival) { unexpected_.push(tag, std::move(arrival)); }

  // --- a receive is posted (take_unexpected first: a receive waits only
  // when no message of its tag has arrived)
  // Moves the oldest unexpected message of `tag` to `out`; false if none.
  bool take_unexpected(Tag tag, Arrival& out) { return unexpected_.take(tag, out); }
  void post(PostedReceive receive) {
    const Tag tag = receive.request->tag();
    posted_.push(tag, std::move(receive));
  }

  bool has_posted() const noexcept { return !posted_.empty(); }
  bool has_unexpected(Tag tag) const noexcept { return unexpected_.contains(tag); }
  template <typename Pred>
  bool any_unexpected(Pred pred) const {
    return unexpected_.any_of(pred);
  }

  // Cancel: removes `request`'s posted receive. False if it is not waiting
  // here (it was matched already, or never posted).
  bool withdraw(const Request& request) {
    PostedReceive withdrawn;
    return posted_.take_if([&request](const PostedReceive& r) { return r.request.get() == &request; }, withdrawn);
  }

  // The peer failed: hands every posted receive to `fail(PostedReceive&)`,
  // oldest first, and forgets it; drops the unexpected messages that
  // `undeliverable(const Arrival&)` accepts (those whose data can no longer
  // come). The others stay for receives posted later: a peer that sent its
  // last message and left has done nothing wrong.
  template <typename Fail, typename Undeliverable>
  void fail_all(Fail fail, Undeliverable undeliverable) {
    posted_.drain(fail);
    unexpected_.erase_if(undeliverable);
  }

 private:
  TagQueue<PostedReceive> posted_;
  TagQueue<Arrival> unexpected_;
};

}  // namespace rcoll::transport
