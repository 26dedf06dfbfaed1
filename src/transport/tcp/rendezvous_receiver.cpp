#include "transport/tcp/rendezvous_receiver.hpp"

#include <string>

#include "rcoll/errors.hpp"

namespace rcoll::transport::tcp {

void RendezvousReceiver::on_rts(const FrameHeader& header) {
  // An id names one message until its DATA arrives: a second RTS under an id
  // still in use would orphan the receive matched to one of them.
  const bool in_use = cleared_.count(header.id) != 0 ||
                      matching_.any_unexpected([&](const UnexpectedMessage& m) { return m.rts && m.id == header.id; });
  if (in_use) throw ProtocolError("RTS reuses id " + std::to_string(header.id) + " of a message still in progress");
  UnexpectedMessage message{.rts = true, .length = static_cast<std::size_t>(header.length), .id = header.id};
  PostedReceive receive;
  if (matching_.take_posted(header.tag, receive))
    accept(header.tag, message, receive);
  else
    matching_.keep(header.tag, std::move(message));
}

void RendezvousReceiver::accept(Tag tag, const UnexpectedMessage& message, const PostedReceive& receive) {
  if (!receive.fits(message.length)) {
    receive.request->fail(truncation_error(side_, message.length, receive.capacity));
    connection_.push_control(FrameType::cts, tag, message.length, message.id, flag_discard);
    return;
  }
  cleared_.emplace(message.id, Cleared{receive.request, receive.buf, message.length});
  connection_.push_control(FrameType::cts, tag, message.length, message.id);
}

std::byte* RendezvousReceiver::on_data(const FrameHeader& header) {
  auto it = cleared_.find(header.id);
  if (it == cleared_.end()) throw ProtocolError("DATA for unknown message id " + std::to_string(header.id));
  // Checked while the receive is still in cleared_: a refused frame fails
  // the peer, and the failure must find the receive to fail it with the rest.
  check_data(header, it->second);
  Cleared cleared = std::move(it->second);
  cleared_.erase(it);
  if (header.flags & flag_withdrawn) {
    if (cleared.request->pending())
      cleared.request->fail(std::make_exception_ptr(
          IoError(side_.rank, side_.peer, "tcp recv",
                  "rank " + std::to_string(side_.peer) + " withdrew (cancelled) the message")));
    return nullptr;
  }
  reading_ = std::move(cleared.request);
  reading_length_ = cleared.length;
  return reading_->pending() ? cleared.buf : nullptr;
}

void RendezvousReceiver::check_data(const FrameHeader& header, const Cleared& cleared) const {
  const bool withdrawn = (header.flags & flag_withdrawn) != 0;
  if (withdrawn && header.length != 0) throw ProtocolError("withdrawn DATA frame with a payload");
  if (!withdrawn && header.length != cleared.length)
    throw ProtocolError("DATA of " + std::to_string(header.length) + " bytes for a message of " +
                        std::to_string(cleared.length));
}

void RendezvousReceiver::on_payload_done() {
  RequestPtr done = std::move(reading_);
  if (done && done->pending()) done->complete(reading_length_);
}

void RendezvousReceiver::take_pending(std::vector<RequestPtr>& out) {
  for (auto& [id, cleared] : cleared_) out.push_back(std::move(cleared.request));
  cleared_.clear();
  if (reading_) out.push_back(std::move(reading_));
}

}  // namespace rcoll::transport::tcp
