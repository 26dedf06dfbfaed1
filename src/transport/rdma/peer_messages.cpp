// Peer: work completions and the messages they carry.
#include <arpa/inet.h>

#include <cstdio>
#include <cstring>

#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "transport/rdma/peer_ops.hpp"

namespace rcoll::transport::rdma {
namespace {

std::string hex(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "%#x", value);
  return text;
}

}  // namespace

void Peer::on_completion(const ibv_wc& wc) {
  if (wc.status != IBV_WC_SUCCESS) {
    on_failed_completion(wc);
    return;
  }
  switch (wr_kind(wc.wr_id)) {
    case WrKind::recv: {
      std::size_t slot = wr_value(wc.wr_id);
      if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
        channel_->repost(slot);
        on_write_imm(ntohl(wc.imm_data));
        return;
      }
      auto slot_bytes = channel_->slot(slot);
      std::size_t length = std::min<std::size_t>(wc.byte_len, slot_bytes.size());
      Message message;
      if (MessageFault fault = decode_message(slot_bytes.data(), length, message); fault != MessageFault::none)
        throw IoError(core_.rank, peer_, "rdma recv", message_problem(fault, message, length));
      on_message(message.header, message.payload, message.payload_bytes);
      channel_->repost(slot);  // after the payload was consumed
      return;
    }
    case WrKind::send_bounce:
    case WrKind::send_inline:
      channel_->on_send_completion();
      return;
    case WrKind::write:
    case WrKind::write_imm:
      channel_->on_send_completion();
      on_write_done(wc.wr_id, wr_kind(wc.wr_id) == WrKind::write_imm);
      return;
    case WrKind::probe:
      channel_->on_send_completion();
      probing_ = false;
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

void Peer::on_message(const MsgHeader& header, const std::byte* payload, std::size_t payload_bytes) {
  if (!channel_->add_credits(header.credits))
    throw IoError(core_.rank, peer_, "rdma recv", "peer returned " + std::to_string(header.credits) +
                                                      " credits, more than its ring holds");
  if (log::get().should_log(spdlog::level::trace)) [[unlikely]]
    log::trace("rdma peer {}: got {} tag {} length {} send {} recv {} credits {}", peer_, kind_name(header.kind),
               header.tag, header.length, header.send_id, header.recv_id, header.credits);
  switch (header.kind) {
    case MsgKind::eager: on_eager(header, payload, payload_bytes); return;
    case MsgKind::rts: on_rts(header); return;
    case MsgKind::cts: on_cts(header); return;
    case MsgKind::credit: return;
    case MsgKind::recv_abort: on_recv_abort(header); return;
    case MsgKind::send_abort: on_send_abort(header); return;
  }
  throw IoError(core_.rank, peer_, "rdma recv", "unknown message kind " + std::to_string(static_cast<int>(header.kind)));
}

// decode_message checked that the payload is exactly header.length bytes.
void Peer::on_eager(const MsgHeader& header, const std::byte* payload, std::size_t bytes) {
  if (RecvOpPtr op = take_posted(header.tag)) {
    finish_eager_recv(std::move(op), payload, bytes);
    return;
  }
  ++core_.stats.unexpected_messages;
  keep_unexpected(header.tag, payload, bytes);
}

void Peer::on_rts(const MsgHeader& header) {
  if (RecvOpPtr op = take_posted(header.tag)) {
    accept_rts(std::move(op), header.length, header.send_id);
    return;
  }
  ++core_.stats.unexpected_messages;
  unexpected_.push_back(
      {.tag = header.tag, .rts = true, .payload = {}, .payload_bytes = 0, .length = header.length, .send_id = header.send_id});
}

void Peer::on_write_done(std::uint64_t wr_id, bool final) {
  auto it = sends_.find(static_cast<std::uint32_t>(wr_value(wr_id)));
  if (it == sends_.end()) return;
  --it->second->in_flight;
  if (final) log::trace("rdma peer {}: send {} writing -> done", peer_, it->first);
}

// The last write of a rendezvous: every byte is in the buffer (RC executes
// writes in order).
void Peer::on_write_imm(std::uint32_t recv_id) {
  auto it = recvs_.find(recv_id);
  if (it == recvs_.end()) {
    log::warn("rdma peer {}: RDMA_WRITE_WITH_IMM for unknown receive {}", peer_, recv_id);
    return;
  }
  RecvOp& op = *it->second;
  log::trace("rdma peer {}: recv {} {} -> done", peer_, recv_id, state_name(op.state));
  if (op.state != RecvState::draining) op.request->complete(op.length);
  erase_recv(recv_id);
}

void Peer::on_send_abort(const MsgHeader& header) {
  auto it = recvs_.find(header.recv_id);
  if (it == recvs_.end()) return;
  RecvOp& op = *it->second;
  log::trace("rdma peer {}: recv {} {} -> aborted by the sender", peer_, op.id, state_name(op.state));
  if (op.state != RecvState::draining) {
    std::string why = (header.flags & abort_failed) != 0 ? "peer failed to register its send buffer"
                                                         : "peer cancelled the send";
    op.request->fail(std::make_exception_ptr(
        IoError(core_.rank, peer_, "rdma recv tag " + std::to_string(op.tag), why)));
  }
  erase_recv(op.id);
}

}  // namespace rcoll::transport::rdma
