#include "transport/rdma/eager_protocol.hpp"

namespace rcoll::transport::rdma {
namespace {

// Idle payload blocks kept per peer: enough for a burst of unexpected
// segments without holding much memory per connection.
constexpr std::size_t kept_payload_blocks = 16;

}  // namespace

EagerProtocol::EagerProtocol(Core& core, int peer, Matching& matching)
    : core_(core),
      matching_(matching),
      side_{"rdma", core.rank, peer},
      payloads_(core.options.eager_limit, kept_payload_blocks) {}

bool EagerProtocol::try_send(Channel& channel, Tag tag, const void* buf, std::size_t bytes) {
  if (bytes > limit(channel) || !channel.can_send(MsgKind::eager)) return false;
  channel.send(MsgHeader{.kind = MsgKind::eager, .tag = tag, .length = bytes}, buf, bytes);
  ++core_.stats.eager_messages;
  return true;
}

bool EagerProtocol::return_credits(Channel& channel) {
  if (!channel.owes_credits() || !channel.can_send(MsgKind::credit)) return false;
  channel.send(MsgHeader{.kind = MsgKind::credit}, nullptr, 0);
  ++core_.stats.credit_messages;
  return true;
}

void EagerProtocol::on_eager(const MsgHeader& header, const std::byte* payload, std::size_t bytes) {
  if (deliver_or_keep(header.tag, payload, bytes)) ++core_.stats.unexpected_messages;
}

void EagerProtocol::deliver_stored(UnexpectedMessage& message, const PostedReceive& receive) {
  const auto length = static_cast<std::size_t>(message.length);
  deliver(receive, message.payload.get(), length, side_);
  payloads_.put(std::move(message.payload), length);
}

bool EagerProtocol::deliver_or_keep(Tag tag, const std::byte* data, std::size_t bytes) {
  PostedReceive receive;
  if (matching_.take_posted(tag, receive)) {
    deliver(receive, data, bytes, side_);
    return false;
  }
  matching_.keep(tag, UnexpectedMessage{.length = bytes, .payload = payloads_.copy(data, bytes)});
  return true;
}

}  // namespace rcoll::transport::rdma
