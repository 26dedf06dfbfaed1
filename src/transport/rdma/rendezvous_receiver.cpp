#include "transport/rdma/rendezvous_receiver.hpp"

#include <string>
#include <utility>

#include "common/log.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::transport::rdma {

void RendezvousReceiver::on_rts(const MsgHeader& header) {
  PostedReceive receive;
  if (matching_.take_posted(header.tag, receive)) return accept(std::move(receive), header.length, header.send_id);
  ++core_.stats.unexpected_messages;
  matching_.keep(header.tag, UnexpectedMessage{.rts = true, .length = header.length, .send_id = header.send_id});
}

void RendezvousReceiver::accept(PostedReceive receive, std::uint64_t length, std::uint32_t send_id) {
  MsgHeader cts{.kind = MsgKind::cts, .length = length, .send_id = send_id};
  if (!receive.fits(length))
    return refuse(receive, cts, cts_truncated, truncation_error(side_, length, receive.capacity));
  MrCache::Lease mr;
  try {
    mr = core_.cache->acquire(receive.buf, length, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  } catch (const IoError&) {
    return refuse(receive, cts, cts_failed, std::current_exception());
  }
  RecvOpPtr op = new_op();
  cts.addr = reinterpret_cast<std::uintptr_t>(receive.buf);
  *op = RecvOp{std::move(receive), core_.new_id(), RecvState::cts_queued, length, send_id, std::move(mr)};
  cts.recv_id = op->id;
  cts.rkey = op->mr.rkey();
  log::trace("rdma peer {}: recv {} posted -> cts_queued ({} bytes from send {})", peer_, op->id, length, send_id);
  control_.push(cts);
  recvs_.emplace(op->id, std::move(op));
}

// Fails the receive and tells the sender to drop the message (recv_id 0).
void RendezvousReceiver::refuse(const PostedReceive& receive, MsgHeader cts, std::uint32_t why,
                                std::exception_ptr failure) {
  receive.request->fail(std::move(failure));
  cts.flags = why;
  control_.push(cts);
}

// The last write of a rendezvous: every byte is in the buffer (RC executes
// writes in order).
void RendezvousReceiver::on_write_imm(std::uint32_t recv_id) {
  auto it = recvs_.find(recv_id);
  if (it == recvs_.end()) {
    log::warn("rdma peer {}: RDMA_WRITE_WITH_IMM for unknown receive {}", peer_, recv_id);
    return;
  }
  RecvOp& op = *it->second;
  log::trace("rdma peer {}: recv {} {} -> done", peer_, recv_id, state_name(op.state));
  if (op.state != RecvState::draining) op.receive.request->complete(op.length);
  finish(recv_id);
}

void RendezvousReceiver::on_send_abort(const MsgHeader& header) {
  auto it = recvs_.find(header.recv_id);
  if (it == recvs_.end()) return;
  RecvOp& op = *it->second;
  log::trace("rdma peer {}: recv {} {} -> aborted by the sender", peer_, op.id, state_name(op.state));
  if (op.state != RecvState::draining) {
    std::string why = (header.flags & abort_failed) != 0 ? "peer failed to register its send buffer"
                                                         : "peer cancelled the send";
    op.receive.request->fail(std::make_exception_ptr(IoError(core_.rank, peer_, "rdma recv", why)));
  }
  finish(op.id);
}

bool RendezvousReceiver::post_control(Channel& channel) {
  return control_.post(channel, peer_, [this](const MsgHeader& header) {
    if (header.kind != MsgKind::cts) return;
    if (auto it = recvs_.find(header.recv_id); it != recvs_.end()) it->second->state = RecvState::awaiting_data;
  });
}

std::uint32_t RendezvousReceiver::cancel(const Request& request) {
  for (auto& [id, op] : recvs_)
    if (op->receive.request.get() == &request) return withdraw(*op);
  return 0;
}

std::uint32_t RendezvousReceiver::withdraw(RecvOp& op) {
  switch (op.state) {
    case RecvState::cts_queued:  // the CTS is still ours: make it drop the message
      for (MsgHeader& header : control_)
        if (header.kind == MsgKind::cts && header.recv_id == op.id)
          header = MsgHeader{.kind = MsgKind::cts, .flags = cts_truncated, .send_id = header.send_id};
      finish(op.id);
      return 0;
    case RecvState::awaiting_data:  // the peer may be writing: it must confirm it stopped
      log::trace("rdma peer {}: recv {} awaiting_data -> draining (cancelled)", peer_, op.id);
      control_.push(MsgHeader{.kind = MsgKind::recv_abort, .send_id = op.send_id, .recv_id = op.id});
      op.state = RecvState::draining;
      return op.id;
    case RecvState::draining:
      return op.id;
  }
  return 0;
}

void RendezvousReceiver::fail(const std::exception_ptr& error) {
  for (auto& [id, op] : recvs_) op->receive.request->fail(error);
  control_.clear();
  recvs_.clear();
}

RendezvousReceiver::RecvOpPtr RendezvousReceiver::new_op() {
  if (spare_.empty()) return std::make_unique<RecvOp>();
  RecvOpPtr op = std::move(spare_.back());
  spare_.pop_back();
  return op;
}

// Drops the request and the registration lease now, and keeps the record.
void RendezvousReceiver::finish(std::uint32_t id) {
  constexpr std::size_t keep = 64;
  auto it = recvs_.find(id);
  if (it == recvs_.end()) return;
  RecvOpPtr op = std::move(it->second);
  recvs_.erase(it);
  *op = RecvOp{};
  if (spare_.size() < keep) spare_.push_back(std::move(op));
}

}  // namespace rcoll::transport::rdma
