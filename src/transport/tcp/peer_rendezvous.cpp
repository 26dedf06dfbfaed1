// Peer: the rendezvous protocol (RTS, CTS, DATA), both halves.
// docs/PROTOCOLS.md describes the frames.
#include <algorithm>
#include <string>

#include "rcoll/errors.hpp"
#include "transport/tcp/peer.hpp"

namespace rcoll::transport::tcp {
namespace {

std::string id_text(const FrameHeader& header) {
  return std::string(to_string(header.type)) + " for unknown message id " + std::to_string(header.id);
}

}  // namespace

// The data stays in the user buffer until the receiver clears it to come.
void Peer::send_rts(const RequestPtr& request, const std::byte* buf, std::size_t bytes) {
  FrameHeader rts;
  rts.type = FrameType::rts;
  rts.tag = request->tag();
  rts.length = bytes;
  rts.id = next_id_++;
  rdv_sends_.emplace(rts.id, RdvSend{request, buf, bytes});
  tx_.push(rts, nullptr, 0);
}

void Peer::on_rts(const FrameHeader& header) {
  // An id names one message until its DATA arrives: a second RTS under an id
  // still in use would orphan the receive matched to one of them.
  bool in_use = rdv_recvs_.count(header.id) != 0 ||
                std::any_of(unexpected_.begin(), unexpected_.end(),
                            [&](const Unexpected& u) { return u.type == FrameType::rts && u.id == header.id; });
  if (in_use) throw ProtocolError("RTS reuses id " + std::to_string(header.id) + " of a message still in progress");
  std::size_t length = static_cast<std::size_t>(header.length);
  PostedRecv recv;
  if (take_posted(header.tag, recv))
    accept_rts(header.tag, length, header.id, recv);
  else
    unexpected_.push_back(Unexpected{FrameType::rts, header.tag, length, header.id, {}, false, {}, 0});
}

// A receive matched a rendezvous message: clear it to come straight into the
// receive buffer, or tell the sender to drop it if it does not fit.
void Peer::accept_rts(Tag tag, std::size_t length, std::uint64_t id, const PostedRecv& recv) {
  if (length > recv.capacity || !recv.request->pending()) {
    if (recv.request->pending()) fail_truncated(*recv.request, length, recv.capacity);
    push_frame(FrameType::cts, tag, length, id, flag_discard);
    return;
  }
  rdv_recvs_.emplace(id, RdvRecv{recv.request, recv.buf, length});
  push_frame(FrameType::cts, tag, length, id);
}

void Peer::on_cts(const FrameHeader& header) {
  auto it = rdv_sends_.find(header.id);
  if (it == rdv_sends_.end()) throw ProtocolError(id_text(header));
  RdvSend send = std::move(it->second);
  rdv_sends_.erase(it);
  if (header.flags & flag_discard) {
    if (send.request->pending()) send.request->complete(send.bytes);
  } else if (!send.request->pending()) {
    push_frame(FrameType::data, header.tag, 0, header.id, flag_withdrawn);
  } else {
    FrameHeader data;
    data.type = FrameType::data;
    data.tag = header.tag;
    data.length = send.bytes;
    data.id = header.id;
    tx_.push(data, send.buf, send.bytes, {send.request, 0});
  }
}

std::byte* Peer::on_data(const FrameHeader& header) {
  auto it = rdv_recvs_.find(header.id);
  if (it == rdv_recvs_.end()) throw ProtocolError(id_text(header));
  // Checked while the receive is still in rdv_recvs_: a refused frame fails
  // the peer, and fail() must find the receive to fail it with the rest.
  bool withdrawn = (header.flags & flag_withdrawn) != 0;
  if (withdrawn && header.length != 0) throw ProtocolError("withdrawn DATA frame with a payload");
  if (!withdrawn && header.length != it->second.length)
    throw ProtocolError("DATA of " + std::to_string(header.length) + " bytes for a message of " +
                        std::to_string(it->second.length));
  RdvRecv recv = std::move(it->second);
  rdv_recvs_.erase(it);
  if (withdrawn) {
    if (recv.request->pending())
      recv.request->fail(std::make_exception_ptr(IoError(
          self_, rank_, "tcp recv tag " + std::to_string(header.tag),
          "rank " + std::to_string(rank_) + " withdrew (cancelled) the message")));
    inbound_ = Inbound{};
    return nullptr;
  }
  inbound_ = Inbound{recv.request, recv.length, {}, false, 0};
  return recv.request->pending() ? recv.buf : nullptr;
}

}  // namespace rcoll::transport::tcp
