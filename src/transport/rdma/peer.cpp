// Peer: requests, matching, cancellation and failure.
#include <algorithm>
#include <cstring>

#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "transport/rdma/peer_ops.hpp"

namespace rcoll::transport::rdma {

std::string_view state_name(SendState state) noexcept {
  switch (state) {
    case SendState::queued: return "queued";
    case SendState::awaiting_cts: return "awaiting_cts";
    case SendState::writing: return "writing";
  }
  return "?";
}

std::string_view state_name(RecvState state) noexcept {
  switch (state) {
    case RecvState::posted: return "posted";
    case RecvState::cts_queued: return "cts_queued";
    case RecvState::awaiting_data: return "awaiting_data";
    case RecvState::draining: return "draining";
  }
  return "?";
}

// Idle payload blocks kept per peer: enough for a burst of unexpected
// segments without holding much memory per connection.
constexpr std::size_t kept_payload_blocks = 16;

Peer::Peer(Core& core, int peer)
    : core_(core), peer_(peer), payloads_(core.options.eager_limit, kept_payload_blocks) {}

Peer::~Peer() {
  // Stop the device first; the operations' registrations go after.
  if (channel_) channel_->shut_down();
}

RequestPtr Peer::isend(Tag tag, const void* buf, std::size_t bytes) {
  auto request = make_request(Request::Kind::send, peer_, tag, bytes);
  if (link_ == Link::failed) {
    request->fail(error_);
    return request;
  }
  if (is_self()) {
    deliver_to_self(tag, buf, bytes);
    request->complete(bytes);
    return request;
  }
  if (send_eager_now(tag, buf, bytes)) {
    request->complete(bytes);
    return request;
  }
  auto op = std::make_unique<SendOp>();
  op->request = request;
  op->id = core_.new_id();
  op->tag = tag;
  op->buf = static_cast<const std::byte*>(buf);
  op->bytes = bytes;
  outbox_.push_back(op.get());
  sends_.emplace(op->id, std::move(op));
  flush();
  return request;
}

// The common small-message case, without an operation record: connected,
// nothing queued ahead (messages leave in isend order), room and a credit.
bool Peer::send_eager_now(Tag tag, const void* buf, std::size_t bytes) {
  if (link_ != Link::connected || !outbox_.empty()) return false;
  if (bytes > std::min(core_.options.eager_limit, channel_->eager_capacity()) || !channel_->can_send(MsgKind::eager))
    return false;
  try {
    channel_->send(MsgHeader{.kind = MsgKind::eager, .tag = tag, .length = bytes}, buf, bytes);
  } catch (const IoError&) {
    fail(std::current_exception());
    return false;  // the caller queues it, and the failed link fails it
  }
  ++core_.stats.eager_messages;
  return true;
}

RequestPtr Peer::irecv(Tag tag, void* buf, std::size_t capacity) {
  auto request = make_request(Request::Kind::recv, peer_, tag, capacity);
  if (link_ == Link::failed && !has_unexpected(tag)) {
    request->fail(error_);
    return request;
  }
  RecvOpPtr op = new_recv_op();
  op->request = request;
  op->tag = tag;
  op->buf = static_cast<std::byte*>(buf);
  op->capacity = capacity;
  Unexpected message;
  if (!take_unexpected(tag, message)) {
    posted_.push_back(std::move(op));
    return request;
  }
  if (message.rts) {
    accept_rts(std::move(op), message.length, message.send_id);
    flush();
  } else {
    finish_eager_recv(std::move(op), message.payload.get(), message.payload_bytes);
    payloads_.put(std::move(message.payload), message.payload_bytes);
  }
  return request;
}

void Peer::deliver_to_self(Tag tag, const void* buf, std::size_t bytes) {
  auto data = static_cast<const std::byte*>(buf);
  if (RecvOpPtr op = take_posted(tag)) {
    finish_eager_recv(std::move(op), data, bytes);
    return;
  }
  keep_unexpected(tag, data, bytes);
}

void Peer::keep_unexpected(Tag tag, const std::byte* data, std::size_t bytes) {
  Unexpected message{.tag = tag, .payload = payloads_.take(bytes), .payload_bytes = bytes};
  if (bytes > 0) std::memcpy(message.payload.get(), data, bytes);
  unexpected_.push_back(std::move(message));
}

Peer::RecvOpPtr Peer::take_posted(Tag tag) {
  auto it = std::find_if(posted_.begin(), posted_.end(), [tag](const RecvOpPtr& op) { return op->tag == tag; });
  if (it == posted_.end()) return nullptr;
  RecvOpPtr op = std::move(*it);
  posted_.erase(it);
  return op;
}

bool Peer::take_unexpected(Tag tag, Unexpected& out) {
  if (unexpected_.empty()) return false;  // the common case; a deque search is not cheap
  auto it = std::find_if(unexpected_.begin(), unexpected_.end(), [tag](const Unexpected& u) { return u.tag == tag; });
  if (it == unexpected_.end()) return false;
  out = std::move(*it);
  unexpected_.erase(it);
  return true;
}

bool Peer::has_unexpected(Tag tag) const {
  return std::any_of(unexpected_.begin(), unexpected_.end(), [tag](const Unexpected& u) { return u.tag == tag; });
}

Peer::RecvOpPtr Peer::new_recv_op() {
  if (spare_recvs_.empty()) return std::make_unique<RecvOp>();
  RecvOpPtr op = std::move(spare_recvs_.back());
  spare_recvs_.pop_back();
  return op;
}

void Peer::recycle(RecvOpPtr op) noexcept {
  constexpr std::size_t keep = 64;
  *op = RecvOp{};  // drops the request and any registration lease now
  if (spare_recvs_.size() < keep) spare_recvs_.push_back(std::move(op));
}

// The message is consumed either way: a too-small buffer fails the receive.
void Peer::finish_eager_recv(RecvOpPtr op, const std::byte* data, std::size_t bytes) {
  if (bytes > op->capacity) {
    op->request->fail(truncation(op->tag, bytes, op->capacity));
  } else {
    if (bytes > 0) std::memcpy(op->buf, data, bytes);
    op->request->complete(bytes);
  }
  recycle(std::move(op));
}

std::exception_ptr Peer::truncation(Tag tag, std::uint64_t bytes, std::size_t capacity) const {
  return std::make_exception_ptr(IoError(core_.rank, peer_, "rdma recv tag " + std::to_string(tag),
                                         "message of " + std::to_string(bytes) +
                                             " bytes exceeds receive buffer of " + std::to_string(capacity) + " bytes"));
}

void Peer::erase_recv(std::uint32_t id) {
  auto it = recvs_.find(id);
  if (it == recvs_.end()) return;
  RecvOpPtr op = std::move(it->second);
  recvs_.erase(it);
  recycle(std::move(op));
}

void Peer::erase_send(std::uint32_t id) { sends_.erase(id); }

std::uint32_t Peer::cancel(Request& request) {
  request.mark_cancelled();
  return request.kind() == Request::Kind::recv ? cancel_recv(request) : cancel_send(request);
}

std::uint32_t Peer::cancel_recv(const Request& request) {
  auto posted = std::find_if(posted_.begin(), posted_.end(), [&](const RecvOpPtr& op) { return op->request.get() == &request; });
  if (posted != posted_.end()) {
    RecvOpPtr op = std::move(*posted);
    posted_.erase(posted);
    recycle(std::move(op));
    return 0;
  }
  auto it = std::find_if(recvs_.begin(), recvs_.end(), [&](auto& e) { return e.second->request.get() == &request; });
  if (it == recvs_.end()) return 0;
  RecvOp& op = *it->second;
  switch (op.state) {
    case RecvState::posted:  // not in recvs_
      return 0;
    case RecvState::cts_queued:  // the CTS is still ours: make it drop the message
      for (MsgHeader& h : control_)
        if (h.kind == MsgKind::cts && h.recv_id == op.id)
          h = MsgHeader{.kind = MsgKind::cts, .flags = cts_truncated, .send_id = h.send_id};
      erase_recv(op.id);
      return 0;
    case RecvState::awaiting_data:  // the peer may be writing: it must confirm it stopped
      log::trace("rdma peer {}: recv {} awaiting_data -> draining (cancelled)", peer_, op.id);
      queue_control(MsgHeader{.kind = MsgKind::recv_abort, .send_id = op.send_id, .recv_id = op.id});
      op.state = RecvState::draining;
      flush();
      return op.id;
    case RecvState::draining:
      return op.id;
  }
  return 0;
}

std::uint32_t Peer::cancel_send(const Request& request) {
  auto it = std::find_if(sends_.begin(), sends_.end(), [&](auto& e) { return e.second->request.get() == &request; });
  if (it == sends_.end()) return 0;
  SendOp& op = *it->second;
  if (op.state == SendState::queued) {
    outbox_.erase(std::find(outbox_.begin(), outbox_.end(), &op));
    erase_send(op.id);
  } else if (op.state == SendState::writing && !op.final_posted && !op.stop) {
    op.stop = true;  // no more chunks; the receiver hears SEND_ABORT after those in flight
    op.send_abort = true;
    flush();
  }
  // awaiting_cts: the op stays until its CTS arrives and is answered with SEND_ABORT.
  return 0;
}

bool Peer::draining(std::uint32_t recv_id) const { return recvs_.count(recv_id) != 0; }

Channel& Peer::make_channel() {
  Where where{core_.rank, peer_};
  channel_ = std::make_unique<Channel>(core_.device, core_.channel_config, where);
  core_.active.push_back(this);
  return *channel_;
}

void Peer::on_connected() {
  link_ = Link::connected;
  heard_ = std::chrono::steady_clock::now();
  ++core_.stats.connected_peers;
  log::debug("rdma peer {}: connected (QP {:#x}, inline {} bytes, eager {} bytes)", peer_, channel_->qpn(),
             channel_->config().max_inline, std::min(core_.options.eager_limit, channel_->eager_capacity()));
  flush();
}

void Peer::fail(const std::exception_ptr& error) {
  if (link_ == Link::failed) return;
  if (link_ == Link::connected) --core_.stats.connected_peers;
  link_ = Link::failed;
  error_ = error;
  if (channel_) channel_->shut_down();
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    if (!has_operations()) log::debug("rdma peer {}: closed: {}", peer_, e.what());
    else log::warn("rdma peer {}: failed: {}", peer_, e.what());
  }
  for (auto& [id, op] : sends_) op->request->fail(error);
  for (auto& [id, op] : recvs_) op->request->fail(error);
  for (auto& op : posted_) op->request->fail(error);
  outbox_.clear();
  writers_.clear();
  control_.clear();
  posted_.clear();
  sends_.clear();
  recvs_.clear();
  // Eager messages that arrived before the failure can still be received;
  // a request to send cannot be served any more.
  std::erase_if(unexpected_, [](const Unexpected& u) { return u.rts; });
}

bool Peer::poll() {
  if (!channel_) return false;
  ibv_wc wcs[16];
  int n = 0;
  try {
    n = channel_->poll(wcs);
    if (n > 0) heard_since_check_ = true;
    for (int i = 0; i < n; ++i)
      if (link_ != Link::failed) on_completion(wcs[i]);
  } catch (const IoError&) {
    fail(std::current_exception());
    return true;
  }
  return n > 0;
}

bool Peer::flush_queued(bool probe_check) {
  try {
    bool moved = false;
    while (!control_.empty() && channel_->can_send(control_.front().kind)) {
      MsgHeader header = control_.front();
      control_.pop_front();
      if (header.kind == MsgKind::cts)
        if (auto it = recvs_.find(header.recv_id); it != recvs_.end()) it->second->state = RecvState::awaiting_data;
      log::trace("rdma peer {}: post {} send {} recv {}", peer_, kind_name(header.kind), header.send_id, header.recv_id);
      channel_->send(header, nullptr, 0);
      moved = true;
    }
    if (!outbox_.empty()) moved |= post_outbox();
    if (!writers_.empty()) moved |= pump_all_writes();
    if (channel_->owes_credits() && channel_->can_send(MsgKind::credit)) {
      channel_->send(MsgHeader{.kind = MsgKind::credit}, nullptr, 0);
      ++core_.stats.credit_messages;
      moved = true;
    }
    if (probe_check) probe_if_quiet();
    return moved;
  } catch (const IoError&) {
    fail(std::current_exception());
    return true;
  }
}

// A peer we wait for but do not hear from may be dead, and on the bootstrap
// path nothing else would tell us (rdma_cm reports DISCONNECTED; a send of
// ours would run out of retries, but a receiver awaiting data sends
// nothing). So after keepalive_interval of silence with operations pending,
// ask the peer's device for an ACK. A live peer's device answers even while
// its process computes; a dead one's QP is gone and the probe's failed
// completion fails the peer (on_failed_completion).
void Peer::probe_if_quiet() {
  auto interval = core_.options.keepalive_interval;
  if (interval.count() == 0 || probing_ || !has_operations()) return;
  auto now = std::chrono::steady_clock::now();
  if (std::exchange(heard_since_check_, false)) heard_ = now;
  if (now - heard_ < interval || !channel_->can_write(false)) return;
  log::trace("rdma peer {}: quiet for {} ms with operations pending: keep-alive probe", peer_,
             std::chrono::duration_cast<std::chrono::milliseconds>(now - heard_).count());
  channel_->probe();
  probing_ = true;
  ++core_.stats.keepalive_probes;
}

}  // namespace rcoll::transport::rdma
