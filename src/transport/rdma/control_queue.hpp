// Control messages of the rendezvous (CTS, RECV_ABORT, SEND_ABORT) waiting
// for the channel to take them, in order. They carry no payload; each costs
// a credit like any SEND.
#pragma once

#include <deque>

#include "common/log.hpp"
#include "transport/rdma/channel.hpp"

namespace rcoll::transport::rdma {

class ControlQueue {
 public:
  bool empty() const noexcept { return queue_.empty(); }
  void push(const MsgHeader& header) { queue_.push_back(header); }
  void clear() noexcept { queue_.clear(); }
  // The messages not posted yet, oldest first (a cancel may rewrite one).
  auto begin() noexcept { return queue_.begin(); }
  auto end() noexcept { return queue_.end(); }

  // Posts what the channel's credits allow, calling `posted(header)` after
  // each; true if any went. Throws IoError if the device refuses a post.
  template <typename Posted>
  bool post(Channel& channel, int peer, Posted posted) {
    bool moved = false;
    while (!queue_.empty() && channel.can_send(queue_.front().kind)) {
      const MsgHeader header = queue_.front();
      queue_.pop_front();
      posted(header);
      log::trace("rdma peer {}: post {} send {} recv {}", peer, kind_name(header.kind), header.send_id, header.recv_id);
      channel.send(header, nullptr, 0);
      moved = true;
    }
    return moved;
  }

 private:
  std::deque<MsgHeader> queue_;
};

}  // namespace rcoll::transport::rdma
