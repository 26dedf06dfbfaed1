// Peer: posting queued messages, and the receiver-driven rendezvous.
//
// Sender: RTS {tag, length, send_id} -> (CTS) -> RDMA WRITEs of at most
// chunk_bytes straight from the user buffer into the receiver's, at most
// writes_in_flight outstanding, the last one WITH_IMM = recv_id.
// Receiver: on a matched RTS, registers exactly the message's bytes of its
// buffer for remote write and answers CTS {send_id, recv_id, addr, rkey,
// length}; the WITH_IMM completes the receive. Zero copies on either side.
#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "transport/rdma/peer_ops.hpp"

namespace rcoll::transport::rdma {

void Peer::queue_control(MsgHeader header) { control_.push_back(header); }

// Takes the receive into the rendezvous (recvs_, by a fresh id), or fails
// it and tells the sender to drop the message.
void Peer::accept_rts(RecvOpPtr owned, std::uint64_t length, std::uint32_t send_id) {
  RecvOp& op = *owned;
  op.id = core_.new_id();
  op.send_id = send_id;
  op.length = length;
  MsgHeader cts{.kind = MsgKind::cts, .length = length, .send_id = send_id, .recv_id = op.id};
  std::exception_ptr failure;
  if (length > op.capacity) {
    failure = truncation(op.tag, length, op.capacity);
    cts.flags = cts_truncated;
  } else {
    try {
      op.mr = core_.cache->acquire(op.buf, length, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    } catch (const IoError&) {
      failure = std::current_exception();
      cts.flags = cts_failed;
    }
  }
  if (failure) {
    op.request->fail(failure);
    cts.recv_id = 0;
    queue_control(cts);
    recycle(std::move(owned));
    return;
  }
  cts.addr = reinterpret_cast<std::uintptr_t>(op.buf);
  cts.rkey = op.mr.rkey();
  op.state = RecvState::cts_queued;
  log::trace("rdma peer {}: recv {} posted -> cts_queued ({} bytes from send {})", peer_, op.id, length, send_id);
  queue_control(cts);
  recvs_.emplace(op.id, std::move(owned));
}

void Peer::on_cts(const MsgHeader& header) {
  auto it = sends_.find(header.send_id);
  if (it == sends_.end() || it->second->state != SendState::awaiting_cts)
    throw IoError(core_.rank, peer_, "rdma CTS", "for send " + std::to_string(header.send_id) + ", which awaits none");
  SendOp& op = *it->second;
  if ((header.flags & cts_truncated) != 0) {  // the receiver dropped the message
    if (op.request->pending()) op.request->complete(op.bytes);
    erase_send(op.id);
    return;
  }
  if ((header.flags & cts_failed) != 0) {
    op.request->fail(std::make_exception_ptr(IoError(core_.rank, peer_, "rdma send tag " + std::to_string(op.tag),
                                                     "peer failed to register its receive buffer")));
    erase_send(op.id);
    return;
  }
  if (!op.request->pending()) {  // cancelled while waiting for this CTS
    queue_control(MsgHeader{.kind = MsgKind::send_abort, .flags = abort_cancelled, .recv_id = header.recv_id});
    erase_send(op.id);
    return;
  }
  if (header.length != op.bytes)
    throw IoError(core_.rank, peer_, "rdma CTS", "for " + std::to_string(header.length) + " bytes, send " +
                                                     std::to_string(op.id) + " has " + std::to_string(op.bytes));
  op.remote_addr = header.addr;
  op.rkey = header.rkey;
  op.recv_id = header.recv_id;
  try {
    op.mr = core_.cache->acquire(op.buf, op.bytes, 0);  // local read only
  } catch (const IoError&) {
    op.request->fail(std::current_exception());
    queue_control(MsgHeader{.kind = MsgKind::send_abort, .flags = abort_failed, .recv_id = header.recv_id});
    erase_send(op.id);
    return;
  }
  log::trace("rdma peer {}: send {} awaiting_cts -> writing ({} bytes to recv {})", peer_, op.id, op.bytes, op.recv_id);
  op.state = SendState::writing;
  ++core_.stats.rendezvous_messages;
  writers_.push_back(&op);
}

// The receiver withdrew: stop writing, and say so after the writes in flight.
void Peer::on_recv_abort(const MsgHeader& header) {
  auto it = sends_.find(header.send_id);
  if (it == sends_.end() || it->second->state != SendState::writing) return;  // finished already
  SendOp& op = *it->second;
  if (op.final_posted || op.stop) return;
  log::trace("rdma peer {}: send {} writing -> stopping (receiver aborted)", peer_, op.id);
  op.stop = true;
  op.send_abort = true;
}

bool Peer::post_outbox() {
  bool moved = false;
  while (!outbox_.empty()) {
    SendOp& op = *outbox_.front();
    bool eager = op.bytes <= std::min(core_.options.eager_limit, channel_->eager_capacity());
    MsgKind kind = eager ? MsgKind::eager : MsgKind::rts;
    if (!channel_->can_send(kind)) break;
    MsgHeader header{.kind = kind, .tag = op.tag, .length = op.bytes, .send_id = op.id};
    outbox_.pop_front();
    moved = true;
    if (eager) {
      channel_->send(header, op.buf, op.bytes);
      ++core_.stats.eager_messages;
      op.request->complete(op.bytes);
      erase_send(op.id);
    } else {
      channel_->send(header, nullptr, 0);
      op.state = SendState::awaiting_cts;
      log::trace("rdma peer {}: send {} queued -> awaiting_cts (RTS tag {}, {} bytes)", peer_, op.id, op.tag, op.bytes);
    }
  }
  return moved;
}

bool Peer::pump_writes(SendOp& op) {
  bool moved = false;
  const std::size_t chunk_limit = core_.options.chunk_bytes;
  while (!op.stop && op.posted < op.bytes && op.in_flight < core_.options.writes_in_flight) {
    std::size_t chunk = std::min(chunk_limit, op.bytes - op.posted);
    bool last = op.posted + chunk == op.bytes;
    if (!channel_->can_write(last)) break;
    channel_->write(op.buf + op.posted, chunk, op.mr.lkey(), op.remote_addr + op.posted, op.rkey,
                    make_wr_id(last ? WrKind::write_imm : WrKind::write, op.id),
                    last ? std::optional<std::uint32_t>(op.recv_id) : std::nullopt);
    op.posted += chunk;
    ++op.in_flight;
    ++core_.stats.rdma_writes;
    op.final_posted = last;
    moved = true;
  }
  if (op.stop && op.send_abort) {
    queue_control(MsgHeader{.kind = MsgKind::send_abort, .flags = abort_cancelled, .recv_id = op.recv_id});
    op.send_abort = false;
    moved = true;
  }
  return moved;
}

// A rendezvous send ends when its writes are done and the receiver has
// been told (WRITE_WITH_IMM, or SEND_ABORT after a stop). Only then may its
// registration go: the device reads the buffer until the last write completes.
bool Peer::pump_all_writes() {
  bool moved = false;
  for (std::size_t i = 0; i < writers_.size();) {
    SendOp& op = *writers_[i];
    moved |= pump_writes(op);
    bool finished = op.in_flight == 0 && (op.final_posted || (op.stop && !op.send_abort));
    if (!finished) {
      ++i;
      continue;
    }
    writers_.erase(writers_.begin() + static_cast<std::ptrdiff_t>(i));
    if (op.request->pending()) op.request->complete(op.bytes);
    erase_send(op.id);
    moved = true;
  }
  return moved;
}

}  // namespace rcoll::transport::rdma
