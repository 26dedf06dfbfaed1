// Peer: requests, the connection, and failure. Frame handling is in peer_frames.cpp.
#include "transport/tcp/peer.hpp"

#include <algorithm>
#include <cstring>

#include "common/log.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::transport::tcp {
namespace {

// Idle unexpected-message blocks kept per peer (16 x 64 KiB = 1 MiB at most).
constexpr std::size_t pooled_blocks = 16;

std::string step_of(const Request& request) {
  return std::string(request.kind() == Request::Kind::send ? "tcp send" : "tcp recv") + " tag " +
         std::to_string(request.tag());
}

}  // namespace

std::string_view to_string(Peer::State state) noexcept {
  switch (state) {
    case Peer::State::unconnected: return "unconnected";
    case Peer::State::ready: return "ready";
    case Peer::State::failed: return "failed";
  }
  return "?";
}

Peer::Peer(int self, int rank, std::size_t eager_limit, Poller& poller, CreditLimits credit,
           SendBuffer send_buffer)
    : self_(self),
      rank_(rank),
      eager_limit_(eager_limit),
      limits_{credit.window, std::min(credit.eager, credit.window)},
      poller_(poller),
      send_buffer_(std::move(send_buffer)),
      pool_(eager_limit, pooled_blocks),
      credit_(credit.window) {
  if (self == rank) where_ = "self";
}

Peer::~Peer() {
  if (fd_) poller_.remove(fd_.get());
}

void Peer::post_send(const RequestPtr& request, const void* buf, std::size_t bytes) {
  if (rank_ == self_) return send_to_self(request, buf, bytes);
  const bool credited = bytes > eager_limit_;
  if (!credited || (bytes <= limits_.eager && bytes <= credit_)) {
    FrameHeader header;
    header.type = FrameType::eager;
    header.tag = request->tag();
    header.length = bytes;
    const std::size_t credit = credited ? bytes : 0;
    credit_ -= credit;
    tx_.push(header, buf, bytes, {request, credit});
  } else {
    send_rts(request, static_cast<const std::byte*>(buf), bytes);
  }
  flush();
}

void Peer::post_recv(const RequestPtr& request, void* buf, std::size_t capacity) {
  PostedRecv recv{request, static_cast<std::byte*>(buf), capacity};
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (it->tag != request->tag() || it->claimant.request) continue;
    if (it->type == FrameType::rts) {
      accept_rts(it->tag, it->length, it->id, recv);
      unexpected_.erase(it);
    } else if (!it->complete) {
      it->claimant = recv;  // completed by on_payload_done
    } else {
      deliver_copy(it->payload.get(), it->length, recv);
      release(it);
    }
    flush();  // a CTS, or a CREDIT frame a release queued
    return;
  }
  if (state_ == State::failed) return fail_request(*request);
  posted_.push_back(recv);
}

void Peer::send_to_self(const RequestPtr& request, const void* buf, std::size_t bytes) {
  auto data = static_cast<const std::byte*>(buf);
  PostedRecv recv;
  if (take_posted(request->tag(), recv)) {
    deliver_copy(data, bytes, recv);
  } else {
    auto& stored =
        unexpected_.emplace_back(Unexpected{FrameType::eager, request->tag(), bytes, 0, {}, true, {}, 0});
    stored.payload = pool_.take(bytes);
    if (bytes > 0) std::memcpy(stored.payload.get(), data, bytes);
  }
  request->complete(bytes);
}

void Peer::release(std::list<Unexpected>::iterator it) {
  pool_.put(std::move(it->payload), it->length);
  give_back(it->credited);
  unexpected_.erase(it);
}

void Peer::cancel(Request& request) {
  if (request.kind() == Request::Kind::recv) {
    posted_.remove_if([&](const PostedRecv& p) { return p.request.get() == &request; });
    if (inbound_.request.get() == &request) rx_.discard_rest();
  } else {
    credit_ += tx_.withdraw(request);  // credited payloads that now never leave
  }
  // Rendezvous entries and claimed unexpected messages check pending() before
  // touching a buffer, so they need no change here.
  request.mark_cancelled();
}

void Peer::fail_request(Request& request) const {
  request.fail(std::make_exception_ptr(IoError(self_, rank_, step_of(request), cause_)));
}

void Peer::fail_truncated(Request& request, std::size_t length, std::size_t capacity) const {
  request.fail(std::make_exception_ptr(IoError(self_, rank_, step_of(request),
                                               "message of " + std::to_string(length) +
                                                   " bytes exceeds receive buffer of " +
                                                   std::to_string(capacity) + " bytes")));
}

void Peer::deliver_copy(const std::byte* data, std::size_t length, const PostedRecv& recv) {
  if (!recv.request->pending()) return;
  if (length > recv.capacity) return fail_truncated(*recv.request, length, recv.capacity);
  if (length > 0) std::memcpy(recv.buf, data, length);
  recv.request->complete(length);
}

void Peer::attach(UniqueFd fd) {
  fd_ = std::move(fd);
  // The receive buffer keeps the kernel's autotuning (SO_RCVBUF would turn
  // it off); the send buffer is set here and then per frame (flush()).
  size_send_buffer(send_buffer_.bytes);
  state_ = State::ready;
  want_write_ = false;
  poller_.modify(fd_.get(), make_key(SocketRole::peer, static_cast<std::uint32_t>(rank_)), false);
  log::debug("rank {}: tcp connection to rank {} ({}) ready", self_, rank_, where_);
  flush();
}

// Writes what the socket takes and keeps EPOLLOUT armed exactly while
// frames wait. Returns true if bytes were written.
bool Peer::flush() {
  if (state_ != State::ready) return false;
  if (const FrameHeader* next = tx_.front()) size_send_buffer(send_buffer_.size_for(*next));
  auto result = tx_.flush(fd_.get());
  if (result.error != 0) {
    fail("send: " + net::errno_text(result.error));
    return true;
  }
  bool want_write = !tx_.empty();
  if (want_write != want_write_) {
    want_write_ = want_write;
    poller_.modify(fd_.get(), make_key(SocketRole::peer, static_cast<std::uint32_t>(rank_)), want_write);
  }
  return result.progressed;
}

// Sets the kernel send buffer to `bytes` unless it is that already (0:
// leave it). On failure the socket keeps what it has and stops resizing.
void Peer::size_send_buffer(std::size_t bytes) {
  if (bytes == 0 || bytes == send_buffer_now_) return;
  if (int error = SendBuffer::apply(fd_.get(), bytes); error != 0) {
    log::warn("rank {}: tcp connection to rank {} ({}): cannot set the send buffer to {} bytes ({}); left as it is",
              self_, rank_, where_, bytes, net::errno_text(error));
    send_buffer_ = {};
    return;
  }
  send_buffer_now_ = bytes;
}

bool Peer::on_events(std::uint32_t events) {
  if (state_ != State::ready) return false;
  bool moved = false;
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
    RxStream::PumpResult result;
    try {
      result = rx_.pump(fd_.get(), *this);
    } catch (const ProtocolError& e) {
      fail(std::string("protocol error: ") + e.what());
      return true;
    }
    log::trace("rank {}: tcp rank {} rx {}", self_, rank_, to_string(rx_.state()));
    if (result.error != 0 || result.closed) {
      fail(result.closed ? "peer closed the connection" : "recv: " + net::errno_text(result.error));
      return true;
    }
    moved = result.progressed;
  }
  // Frames handling may have queued CTS/DATA; send them now.
  if (!tx_.empty()) moved = flush() || moved;
  return moved;
}

std::vector<RequestPtr> Peer::take_pending() {
  std::vector<RequestPtr> pending = tx_.take_requests();
  for (auto& p : posted_) pending.push_back(std::move(p.request));
  for (auto& [id, s] : rdv_sends_) pending.push_back(std::move(s.request));
  for (auto& [id, r] : rdv_recvs_) pending.push_back(std::move(r.request));
  for (auto& u : unexpected_)
    if (u.claimant.request) pending.push_back(std::move(u.claimant.request));
  if (inbound_.request) pending.push_back(std::move(inbound_.request));
  posted_.clear();
  rdv_sends_.clear();
  rdv_recvs_.clear();
  // Complete eager messages stay matchable: a peer that sent its last message
  // and exited has done nothing wrong, and a receive posted later must get it.
  // Partial payloads and RTS (whose data never comes now) are dropped.
  unexpected_.remove_if([](const Unexpected& u) { return u.type != FrameType::eager || !u.complete; });
  inbound_ = Inbound{};
  return pending;
}

void Peer::fail(const std::string& cause) {
  if (state_ == State::failed) return;
  state_ = State::failed;
  cause_ = "connection to rank " + std::to_string(rank_) + " (" + where_ + "): " + cause;
  if (fd_) {
    poller_.remove(fd_.get());
    fd_.reset();
  }
  std::size_t failed = 0;
  for (auto& request : take_pending()) {
    if (!request || !request->pending()) continue;
    fail_request(*request);
    ++failed;
  }
  // A peer that leaves with nothing pending may simply have finished first;
  // it becomes an error only if this rank talks to it again.
  if (failed > 0)
    log::warn("rank {}: {} ({} pending requests failed)", self_, cause_, failed);
  else
    log::debug("rank {}: {}", self_, cause_);
}

}  // namespace rcoll::transport::tcp
