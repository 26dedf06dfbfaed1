#include "transport/rdma/peer.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "common/log.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::transport::rdma {
namespace {

std::string hex(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "%#x", value);
  return text;
}

}  // namespace

Peer::Peer(Core& core, int peer)
    : core_(core),
      peer_(peer),
      eager_(core, peer, matching_),
      rendezvous_out_(core, peer),
      rendezvous_in_(core, peer, matching_),
      keep_alive_(core, peer) {}

Peer::~Peer() {
  // Stop the device first; the operations' registrations go after.
  if (channel_) channel_->shut_down();
}

RequestPtr Peer::isend(Tag tag, const void* buf, std::size_t bytes) {
  auto request = make_request(Request::Kind::send, peer_, tag, bytes);
  if (link_ == Link::failed) {
    request->fail(error_);
  } else if (is_self()) {
    eager_.send_to_self(tag, buf, bytes);
    request->complete(bytes);
  } else if (send_eager_now(tag, buf, bytes)) {
    request->complete(bytes);
  } else {
    queue_send(request, buf, bytes);
  }
  return request;
}

// The common small-message case, without an operation record: connected,
// nothing queued ahead (messages leave in isend order), room and a credit.
bool Peer::send_eager_now(Tag tag, const void* buf, std::size_t bytes) {
  if (link_ != Link::connected || !outbox_.empty()) return false;
  try {
    return eager_.try_send(*channel_, tag, buf, bytes);
  } catch (const IoError&) {
    fail(std::current_exception());
    return false;  // the caller queues it, and the failed link fails it
  }
}

void Peer::queue_send(const RequestPtr& request, const void* buf, std::size_t bytes) {
  if (link_ == Link::failed) return request->fail(error_);
  auto op = std::make_unique<SendOp>();
  op->request = request;
  op->tag = request->tag();
  op->buf = static_cast<const std::byte*>(buf);
  op->bytes = bytes;
  outbox_.push_back(std::move(op));
  flush();
}

RequestPtr Peer::irecv(Tag tag, void* buf, std::size_t capacity) {
  auto request = make_request(Request::Kind::recv, peer_, tag, capacity);
  PostedReceive receive{request, static_cast<std::byte*>(buf), capacity};
  UnexpectedMessage message;
  if (!matching_.take_unexpected(tag, message)) {
    if (link_ == Link::failed)
      request->fail(error_);
    else
      matching_.post(std::move(receive));
  } else if (message.rts) {
    rendezvous_in_.accept(std::move(receive), message.length, message.send_id);
    flush();
  } else {
    eager_.deliver_stored(message, receive);
  }
  return request;
}

std::uint32_t Peer::cancel(Request& request) {
  request.mark_cancelled();
  if (request.kind() == Request::Kind::recv) {
    if (matching_.withdraw(request)) return 0;
    const std::uint32_t drain = rendezvous_in_.cancel(request);
    flush();  // a RECV_ABORT, or a CTS that now refuses the message
    return drain;
  }
  if (!withdraw_queued(request)) {
    rendezvous_out_.cancel(request);
    flush();
  }
  return 0;
}

bool Peer::withdraw_queued(const Request& request) {
  auto it = std::find_if(outbox_.begin(), outbox_.end(), [&](const auto& op) { return op->request.get() == &request; });
  if (it == outbox_.end()) return false;
  outbox_.erase(it);
  return true;
}

Channel& Peer::make_channel() {
  Where where{core_.rank, peer_};
  channel_ = std::make_unique<Channel>(core_.device, core_.channel_config, where);
  core_.active.push_back(this);
  return *channel_;
}

void Peer::on_connected() {
  link_ = Link::connected;
  keep_alive_.on_connected();
  ++core_.stats.connected_peers;
  log::debug("rdma peer {}: connected (QP {:#x}, inline {} bytes, eager {} bytes)", peer_, channel_->qpn(),
             channel_->config().max_inline, eager_.limit(*channel_));
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
  for (auto& op : outbox_) op->request->fail(error);
  outbox_.clear();
  rendezvous_out_.fail(error);
  rendezvous_in_.fail(error);
  // Eager messages that arrived before the failure can still be received;
  // a request to send cannot be served any more.
  matching_.fail_all([&](PostedReceive& receive) { receive.request->fail(error); },
                     [](const UnexpectedMessage& message) { return message.rts; });
}

bool Peer::poll() {
  if (!channel_) return false;
  ibv_wc wcs[16];
  int n = 0;
  try {
    n = channel_->poll(wcs);
    if (n > 0) keep_alive_.heard();
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
    bool moved = rendezvous_in_.post_control(*channel_);
    if (!outbox_.empty()) moved |= post_outbox();
    moved |= rendezvous_out_.post_writes(*channel_);
    // After the writes: the SEND_ABORT of a send that post_writes stopped
    // (and completed) leaves in this pass, not in a later one that may
    // never come (the sender's thread can stop driving once its send is done).
    moved |= rendezvous_out_.post_control(*channel_);
    moved |= eager_.return_credits(*channel_);
    if (probe_check) keep_alive_.probe_if_quiet(*channel_, has_operations());
    return moved;
  } catch (const IoError&) {
    fail(std::current_exception());
    return true;
  }
}

// Posts queued sends in order while the channel has room: an eager one
// whole, a rendezvous one as its RTS. A post that throws leaves its send
// queued, so that the failure fails it.
bool Peer::post_outbox() {
  bool moved = false;
  while (!outbox_.empty()) {
    SendOp& op = *outbox_.front();
    if (op.bytes <= eager_.limit(*channel_)) {
      if (!eager_.try_send(*channel_, op.tag, op.buf, op.bytes)) break;
      op.request->complete(op.bytes);
    } else if (!rendezvous_out_.try_start(*channel_, outbox_.front())) {
      break;
    }
    outbox_.pop_front();
    moved = true;
  }
  return moved;
}

void Peer::on_completion(const ibv_wc& wc) {
  if (wc.status != IBV_WC_SUCCESS) return on_failed_completion(wc);
  switch (wr_kind(wc.wr_id)) {
    case WrKind::recv: return on_receive(wc);
    case WrKind::send_bounce:
    case WrKind::send_inline:
      channel_->on_send_completion();
      return;
    case WrKind::write:
    case WrKind::write_imm:
      channel_->on_send_completion();
      rendezvous_out_.on_write_done(wc.wr_id, wr_kind(wc.wr_id) == WrKind::write_imm);
      return;
    case WrKind::probe:
      channel_->on_send_completion();
      keep_alive_.on_probe_done();
      return;
  }
  throw IoError(core_.rank, peer_, "rdma completion", "unknown work request id " + std::to_string(wc.wr_id));
}

// A failed completion names what failed (from our wr_id: a failed
// completion's opcode is undefined), the QP and the device's status; it
// fails every request on the peer.
void Peer::on_failed_completion(const ibv_wc& wc) {
  std::string what = std::string(wr_kind_name(wr_kind(wc.wr_id)));
  std::string cause = std::string(ibv_wc_status_str(wc.status)) + " (status " + std::to_string(wc.status) +
                      ", vendor error " + hex(wc.vendor_err) + ")";
  if (wc.status == IBV_WC_RETRY_EXC_ERR) cause += ": the peer's queue pair does not answer (process gone? path down?)";
  fail(std::make_exception_ptr(IoError(core_.rank, peer_, "rdma " + what + " on QP " + hex(wc.qp_num), cause)));
}

// A ring slot filled: a SEND from the peer, or the immediate of the last
// write of a rendezvous. The slot is reposted once its payload is consumed.
void Peer::on_receive(const ibv_wc& wc) {
  const std::size_t slot = wr_value(wc.wr_id);
  if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
    channel_->repost(slot);
    return rendezvous_in_.on_write_imm(ntohl(wc.imm_data));
  }
  auto slot_bytes = channel_->slot(slot);
  const std::size_t length = std::min<std::size_t>(wc.byte_len, slot_bytes.size());
  Message message;
  if (MessageFault fault = decode_message(slot_bytes.data(), length, message); fault != MessageFault::none)
    throw IoError(core_.rank, peer_, "rdma recv", message_problem(fault, message, length));
  on_message(message.header, message.payload, message.payload_bytes);
  channel_->repost(slot);
}

void Peer::on_message(const MsgHeader& header, const std::byte* payload, std::size_t payload_bytes) {
  if (!channel_->add_credits(header.credits))
    throw IoError(core_.rank, peer_, "rdma recv", "peer returned " + std::to_string(header.credits) +
                                                      " credits, more than its ring holds");
  if (log::get().should_log(spdlog::level::trace)) [[unlikely]]
    log::trace("rdma peer {}: got {} tag {} length {} send {} recv {} credits {}", peer_, kind_name(header.kind),
               header.tag, header.length, header.send_id, header.recv_id, header.credits);
  switch (header.kind) {
    case MsgKind::eager: return eager_.on_eager(header, payload, payload_bytes);
    case MsgKind::rts: return rendezvous_in_.on_rts(header);
    case MsgKind::cts: return rendezvous_out_.on_cts(header);
    case MsgKind::credit: return;
    case MsgKind::recv_abort: return rendezvous_out_.on_recv_abort(header);
    case MsgKind::send_abort: return rendezvous_in_.on_send_abort(header);
  }
  throw IoError(core_.rank, peer_, "rdma recv", "unknown message kind " + std::to_string(static_cast<int>(header.kind)));
}

}  // namespace rcoll::transport::rdma
