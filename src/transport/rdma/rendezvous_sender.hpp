// The sending half of the receiver-driven rendezvous towards one peer
// (docs/RDMA.md, "Rendezvous"): RTS {tag, length, send_id}; on the CTS,
// RDMA WRITEs of at most chunk_bytes straight from the user buffer into the
// receiver's, at most writes_in_flight outstanding, the last one WITH_IMM =
// recv_id. A send ends when its writes are done and the receiver has been
// told (WRITE_WITH_IMM, or SEND_ABORT after a stop); only then may its
// registration go, since the device reads the buffer until the last write
// completes.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <unordered_map>
#include <vector>

#include "transport/rdma/control_queue.hpp"
#include "transport/rdma/core.hpp"
#include "transport/rdma/send_op.hpp"

namespace rcoll::transport::rdma {

class RendezvousSender {
 public:
  RendezvousSender(Core& core, int peer) : core_(core), peer_(peer) {}

  // Sends in the rendezvous, from RTS to the last write.
  bool busy() const noexcept { return !sends_.empty(); }
  // Messages or writes wait to be posted.
  bool wants_to_post() const noexcept { return !control_.empty() || !writers_.empty(); }

  // Posts the RTS of the queued send `op` if the channel has room for it,
  // and takes the send over (true; `op` is then empty). Throws IoError.
  bool try_start(Channel& channel, std::unique_ptr<SendOp>& op);
  // Throws IoError for a CTS that answers no RTS awaiting one.
  void on_cts(const MsgHeader& header);
  void on_recv_abort(const MsgHeader& header);
  void on_write_done(std::uint64_t wr_id, bool final);
  // Posts the SEND_ABORTs, then the writes, that credits and room allow.
  bool post_control(Channel& channel) {
    return control_.post(channel, peer_, [](const MsgHeader&) {});
  }
  bool post_writes(Channel& channel);
  // A cancelled send stops posting chunks and tells the receiver; one
  // still awaiting its CTS answers it with SEND_ABORT.
  void cancel(const Request& request);
  void fail(const std::exception_ptr& error);

 private:
  void accept_cts(SendOp& op, const MsgHeader& header);
  void abort(std::uint32_t recv_id, std::uint32_t why) {
    control_.push(MsgHeader{.kind = MsgKind::send_abort, .flags = why, .recv_id = recv_id});
  }
  bool pump(Channel& channel, SendOp& op);
  void finish(std::uint32_t id) { sends_.erase(id); }

  Core& core_;
  int peer_;
  std::unordered_map<std::uint32_t, std::unique_ptr<SendOp>> sends_;  // by send_id
  std::vector<SendOp*> writers_;   // with writes to post or complete
  ControlQueue control_;  // SEND_ABORTs
};

}  // namespace rcoll::transport::rdma
