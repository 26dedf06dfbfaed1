#include "transport/rdma/rendezvous_sender.hpp"

#include <optional>

#include "common/log.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::transport::rdma {

bool RendezvousSender::try_start(Channel& channel, std::unique_ptr<SendOp>& op) {
  if (!channel.can_send(MsgKind::rts)) return false;
  op->id = core_.new_id();
  channel.send(MsgHeader{.kind = MsgKind::rts, .tag = op->tag, .length = op->bytes, .send_id = op->id}, nullptr, 0);
  op->state = SendState::awaiting_cts;
  log::trace("rdma peer {}: send {} queued -> awaiting_cts (RTS tag {}, {} bytes)", peer_, op->id, op->tag, op->bytes);
  const std::uint32_t id = op->id;
  sends_.emplace(id, std::move(op));
  return true;
}

void RendezvousSender::on_cts(const MsgHeader& header) {
  auto it = sends_.find(header.send_id);
  if (it == sends_.end() || it->second->state != SendState::awaiting_cts)
    throw IoError(core_.rank, peer_, "rdma CTS", "for send " + std::to_string(header.send_id) + ", which awaits none");
  SendOp& op = *it->second;
  if ((header.flags & cts_truncated) != 0) {  // the receiver dropped the message
    if (op.request->pending()) op.request->complete(op.bytes);
    return finish(op.id);
  }
  if ((header.flags & cts_failed) != 0) {
    op.request->fail(std::make_exception_ptr(IoError(core_.rank, peer_, "rdma send",
                                                     "peer failed to register its receive buffer")));
    return finish(op.id);
  }
  if (!op.request->pending()) {  // cancelled while waiting for this CTS
    abort(header.recv_id, abort_cancelled);
    return finish(op.id);
  }
  accept_cts(op, header);
}

void RendezvousSender::accept_cts(SendOp& op, const MsgHeader& header) {
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
    abort(header.recv_id, abort_failed);
    return finish(op.id);
  }
  log::trace("rdma peer {}: send {} awaiting_cts -> writing ({} bytes to recv {})", peer_, op.id, op.bytes, op.recv_id);
  op.state = SendState::writing;
  ++core_.stats.rendezvous_messages;
  writers_.push_back(&op);
}

// The receiver withdrew: stop writing, and say so after the writes in flight.
void RendezvousSender::on_recv_abort(const MsgHeader& header) {
  auto it = sends_.find(header.send_id);
  if (it == sends_.end() || it->second->state != SendState::writing) return;  // finished already
  SendOp& op = *it->second;
  if (op.final_posted || op.stop) return;
  log::trace("rdma peer {}: send {} writing -> stopping (receiver aborted)", peer_, op.id);
  op.stop = true;
  op.send_abort = true;
}

void RendezvousSender::on_write_done(std::uint64_t wr_id, bool final) {
  auto it = sends_.find(static_cast<std::uint32_t>(wr_value(wr_id)));
  if (it == sends_.end()) return;
  --it->second->in_flight;
  if (final) log::trace("rdma peer {}: send {} writing -> done", peer_, it->first);
}

bool RendezvousSender::post_writes(Channel& channel) {
  bool moved = false;
  for (std::size_t i = 0; i < writers_.size();) {
    SendOp& op = *writers_[i];
    moved |= pump(channel, op);
    const bool finished = op.in_flight == 0 && (op.final_posted || (op.stop && !op.send_abort));
    if (!finished) {
      ++i;
      continue;
    }
    writers_.erase(writers_.begin() + static_cast<std::ptrdiff_t>(i));
    if (op.request->pending()) op.request->complete(op.bytes);
    finish(op.id);
    moved = true;
  }
  return moved;
}

// Posts the chunks that room allows; after a stop, queues the SEND_ABORT.
bool RendezvousSender::pump(Channel& channel, SendOp& op) {
  bool moved = false;
  while (!op.stop && op.posted < op.bytes && op.in_flight < core_.options.writes_in_flight) {
    const std::size_t chunk = std::min(core_.options.chunk_bytes, op.bytes - op.posted);
    const bool last = op.posted + chunk == op.bytes;
    if (!channel.can_write(last)) break;
    channel.write(op.buf + op.posted, chunk, op.mr.lkey(), op.remote_addr + op.posted, op.rkey,
                  make_wr_id(last ? WrKind::write_imm : WrKind::write, op.id),
                  last ? std::optional<std::uint32_t>(op.recv_id) : std::nullopt);
    op.posted += chunk;
    ++op.in_flight;
    ++core_.stats.rdma_writes;
    op.final_posted = last;
    moved = true;
  }
  if (op.stop && op.send_abort) {
    abort(op.recv_id, abort_cancelled);
    op.send_abort = false;
    moved = true;
  }
  return moved;
}

void RendezvousSender::cancel(const Request& request) {
  for (auto& [id, op] : sends_) {
    if (op->request.get() != &request) continue;
    if (op->state == SendState::writing && !op->final_posted && !op->stop) {
      op->stop = true;  // no more chunks; the receiver hears SEND_ABORT after those in flight
      op->send_abort = true;
    }
    return;  // awaiting_cts: it stays until its CTS arrives and is answered with SEND_ABORT
  }
}

void RendezvousSender::fail(const std::exception_ptr& error) {
  for (auto& [id, op] : sends_) op->request->fail(error);
  writers_.clear();
  control_.clear();
  sends_.clear();
}

}  // namespace rcoll::transport::rdma
