// Peer: what each incoming frame does: dispatch, the eager protocol and the
// credit that bounds it. The rendezvous frames are in peer_rendezvous.cpp.
#include <algorithm>
#include <string>

#include "rcoll/errors.hpp"
#include "transport/tcp/peer.hpp"

namespace rcoll::transport::tcp {

std::byte* Peer::on_frame(const FrameHeader& header) {
  switch (header.type) {
    case FrameType::eager: return on_eager(header);
    case FrameType::rts: on_rts(header); return nullptr;
    case FrameType::cts: on_cts(header); return nullptr;
    case FrameType::data: return on_data(header);
    case FrameType::credit: on_credit(header); return nullptr;
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

// A credited payload (an EAGER frame above the free limit) spends the
// sender's credit: one beyond what the window has left is a protocol
// violation, not a message (this also keeps a corrupt length from
// allocating gigabytes). Returns the credit the payload holds.
std::size_t Peer::take_credit(std::uint64_t bytes, const char* what) {
  if (bytes > limits_.window - credit_held_)
    throw ProtocolError(std::string(what) + " of " + std::to_string(bytes) + " bytes beyond the credit window (" +
                        std::to_string(credit_held_) + " of " + std::to_string(limits_.window) +
                        " bytes in use)");
  credit_held_ += static_cast<std::size_t>(bytes);
  return static_cast<std::size_t>(bytes);
}

std::byte* Peer::on_eager(const FrameHeader& header) {
  const std::size_t credited = header.length > eager_limit_ ? take_credit(header.length, "EAGER frame") : 0;
  const std::size_t length = static_cast<std::size_t>(header.length);
  PostedRecv recv;
  if (take_posted(header.tag, recv)) {
    if (length > recv.capacity) {
      fail_truncated(*recv.request, length, recv.capacity);
      inbound_ = Inbound{nullptr, length, {}, false, credited};  // read into nowhere
      return nullptr;
    }
    inbound_ = Inbound{recv.request, length, {}, false, credited};
    return recv.buf;
  }
  auto it = unexpected_.insert(unexpected_.end(),
                               Unexpected{FrameType::eager, header.tag, length, 0, {}, false, {}, credited});
  it->payload = pool_.take(length);
  inbound_ = Inbound{nullptr, length, it, true, 0};
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
    return;
  }
  if (done.request && done.request->pending()) done.request->complete(done.length);
  give_back(done.credited);  // delivered, or read into nowhere (truncated, cancelled)
}

// Hands credit back in CREDIT frames of at least one largest credited
// message (at most a quarter window), so that a stream of messages costs few
// frames while what the receiver holds back stays below one such message.
// The caller flushes.
void Peer::give_back(std::size_t bytes) {
  if (bytes == 0 || state_ != State::ready) return;
  credit_owed_ += bytes;
  std::size_t batch = std::min(limits_.window / 4, limits_.eager);
  if (credit_owed_ < std::max<std::size_t>(batch, 1)) return;
  push_frame(FrameType::credit, 0, credit_owed_, 0);
  credit_held_ -= credit_owed_;
  credit_owed_ = 0;
}

void Peer::on_credit(const FrameHeader& header) {
  if (header.length > limits_.window - credit_)
    throw ProtocolError("CREDIT of " + std::to_string(header.length) + " bytes beyond the window (" +
                        std::to_string(credit_) + " of " + std::to_string(limits_.window) + " bytes unspent)");
  credit_ += static_cast<std::size_t>(header.length);
}

void Peer::push_frame(FrameType type, Tag tag, std::size_t length, std::uint64_t id, std::uint8_t flags) {
  FrameHeader header;
  header.type = type;
  header.tag = tag;
  header.length = length;
  header.id = id;
  header.flags = flags;
  tx_.push(header, nullptr, 0);
}

}  // namespace rcoll::transport::tcp
