// The eager protocol towards one peer (docs/RDMA.md, "Eager and credits"): a
// message that fits both sides' ring slots goes whole in one SEND, inline or
// from a bounce buffer, and is done once posted. The receiver copies it out
// of its ring slot into the oldest receive posted for its tag, or keeps a
// copy (pooled blocks) until a receive matches it.
//
// The ring's credits (Channel) bound the SENDs in flight; they travel back
// in the header of every message, and in a CREDIT message of their own when
// half the ring is owed (return_credits).
#pragma once

#include <algorithm>
#include <cstddef>

#include "transport/buffer_pool.hpp"
#include "transport/rdma/core.hpp"
#include "transport/rdma/unexpected_message.hpp"

namespace rcoll::transport::rdma {

class EagerProtocol {
 public:
  EagerProtocol(Core& core, int peer, Matching& matching);

  // The largest message that goes eagerly on `channel`.
  std::size_t limit(const Channel& channel) const noexcept {
    return std::min(core_.options.eager_limit, channel.eager_capacity());
  }
  // Posts the message if it goes eagerly and the channel has a credit for
  // it; false: not now. Throws IoError if the device refuses the post.
  bool try_send(Channel& channel, Tag tag, const void* buf, std::size_t bytes);
  // A send to this rank itself: copied into a posted receive, or kept.
  void send_to_self(Tag tag, const void* buf, std::size_t bytes) {
    deliver_or_keep(tag, static_cast<const std::byte*>(buf), bytes);
  }
  // Sends a CREDIT message if the peer is owed one and it can go.
  bool return_credits(Channel& channel);

  // decode_message checked that the payload is exactly header.length bytes.
  void on_eager(const MsgHeader& header, const std::byte* payload, std::size_t bytes);
  // Serves a kept message to the receive that matched it.
  void deliver_stored(UnexpectedMessage& message, const PostedReceive& receive);

 private:
  // True if the message was kept (no receive was posted for it).
  bool deliver_or_keep(Tag tag, const std::byte* data, std::size_t bytes);

  Core& core_;
  Matching& matching_;
  ReceiveSide side_;
  BufferPool payloads_;
};

}  // namespace rcoll::transport::rdma
