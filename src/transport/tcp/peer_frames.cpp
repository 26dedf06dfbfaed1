// Peer: what each incoming frame does (the receiving half of the eager and
// rendezvous protocols).
#include <string>

#include "rcoll/errors.hpp"
#include "transport/tcp/peer.hpp"

namespace rcoll::transport::tcp {
namespace {

// An EAGER frame above this is a protocol violation, not a message: refusing
// it keeps a corrupt length from allocating gigabytes.
constexpr std::uint64_t max_eager_accepted = 16u << 20;

std::string id_text(const FrameHeader& header) {
  return std::string(to_string(header.type)) + " for unknown message id " + std::to_string(header.id);
}

}  // namespace

std::byte* Peer::on_frame(const FrameHeader& header) {
  switch (header.type) {
    case FrameType::eager: return on_eager(header);
    case FrameType::rts: on_rts(header); return nullptr;
    case FrameType::cts: on_cts(header); return nullptr;
    case FrameType::data: return on_data(header);
  }
  throw ProtocolError("unknown frame type " + std::to_string(static_cast<int>(header.type)));
}

bool Peer::take_posted(Tag tag, PostedRecv& out) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (it->request->tag() != tag) continue;
    out = std::move(*it);
    posted_.erase(it);
    return true;
  }
  return false;
}

std::byte* Peer::on_eager(const FrameHeader& header) {
  if (header.length > max_eager_accepted)
    throw ProtocolError("EAGER frame of " + std::to_string(header.length) + " bytes");
  std::size_t length = static_cast<std::size_t>(header.length);
  PostedRecv recv;
  if (take_posted(header.tag, recv)) {
    if (length > recv.capacity) {
      fail_truncated(*recv.request, length, recv.capacity);
      inbound_ = Inbound{};
      return nullptr;
    }
    inbound_ = Inbound{recv.request, length, {}, false};
    return recv.buf;
  }
  auto it = unexpected_.insert(unexpected_.end(), Unexpected{FrameType::eager, header.tag, length, 0, {}, false, {}});
  it->payload = pool_.take(length);
  inbound_ = Inbound{nullptr, length, it, true};
  return it->payload.get();
}

void Peer::on_payload_done() {
  Inbound done = std::move(inbound_);
  inbound_ = Inbound{};
  if (done.to_unexpected) {
    done.unexpected->complete = true;
    if (done.unexpected->claimant.request) {
      deliver_copy(done.unexpected->payload.get(), done.length, done.unexpected->claimant);
      release(done.unexpected);
    }
  } else if (done.request && done.request->pending()) {
    done.request->complete(done.length);
  }
}

void Peer::on_rts(const FrameHeader& header) {
  std::size_t length = static_cast<std::size_t>(header.length);
  PostedRecv recv;
  if (take_posted(header.tag, recv))
    accept_rts(header.tag, length, header.id, recv);
  else
    unexpected_.push_back(Unexpected{FrameType::rts, header.tag, length, header.id, {}, false, {}});
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
    tx_.push(data, send.buf, send.bytes, send.request);
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
  inbound_ = Inbound{recv.request, recv.length, {}, false};
  return recv.request->pending() ? recv.buf : nullptr;
}

void Peer::push_frame(FrameType type, Tag tag, std::size_t length, std::uint64_t id, std::uint8_t flags) {
  FrameHeader header;
  header.type = type;
  header.tag = tag;
  header.length = length;
  header.id = id;
  header.flags = flags;
  tx_.push(header, nullptr, 0, nullptr);
}

}  // namespace rcoll::transport::tcp
