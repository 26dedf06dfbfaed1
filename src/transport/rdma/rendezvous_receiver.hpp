// The receiving half of the receiver-driven rendezvous towards one peer
// (docs/RDMA.md, "Rendezvous"): an RTS is matched to the oldest receive
// posted for its tag, or kept as an unexpected message until a receive
// matches it. A matched receive registers exactly the message's bytes of its
// buffer for remote write and answers CTS {send_id, recv_id, addr, rkey,
// length}; the peer's last write, WITH_IMM = recv_id, completes it. A
// message that does not fit, or a buffer the device will not register,
// fails the receive and refuses the message in the CTS.
//
// Cancel: before the CTS is posted the CTS refuses the message instead;
// after it, the peer may be writing, so a RECV_ABORT goes and the receive
// drains until the peer's final WRITE_WITH_IMM or SEND_ABORT.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <unordered_map>
#include <vector>

#include "transport/rdma/control_queue.hpp"
#include "transport/rdma/core.hpp"
#include "transport/rdma/recv_op.hpp"
#include "transport/rdma/unexpected_message.hpp"

namespace rcoll::transport::rdma {

class RendezvousReceiver {
 public:
  RendezvousReceiver(Core& core, int peer, Matching& matching)
      : core_(core), peer_(peer), matching_(matching), side_{"rdma", core.rank, peer} {}

  // Receives in the rendezvous, from the CTS to the last write.
  bool busy() const noexcept { return !recvs_.empty(); }
  // CTS or RECV_ABORT messages wait to be posted.
  bool wants_to_post() const noexcept { return !control_.empty(); }

  void on_rts(const MsgHeader& header);
  // A receive matched a request to send of `length` bytes from `send_id`.
  void accept(PostedReceive receive, std::uint64_t length, std::uint32_t send_id);
  void on_write_imm(std::uint32_t recv_id);
  void on_send_abort(const MsgHeader& header);
  bool post_control(Channel& channel);
  // Withdraws `request` if it is in the rendezvous. Returns its id if it
  // must drain (its CTS is out: the peer may still be writing), else 0.
  std::uint32_t cancel(const Request& request);
  bool draining(std::uint32_t recv_id) const { return recvs_.count(recv_id) != 0; }
  void fail(const std::exception_ptr& error);

 private:
  using RecvOpPtr = std::unique_ptr<RecvOp>;

  void refuse(const PostedReceive& receive, MsgHeader cts, std::uint32_t why, std::exception_ptr failure);
  std::uint32_t withdraw(RecvOp& op);
  RecvOpPtr new_op();
  void finish(std::uint32_t id);

  Core& core_;
  int peer_;
  Matching& matching_;
  ReceiveSide side_;
  std::unordered_map<std::uint32_t, RecvOpPtr> recvs_;  // by recv_id
  std::vector<RecvOpPtr> spare_;  // finished records, for reuse
  ControlQueue control_;          // CTS and RECV_ABORTs
};

}  // namespace rcoll::transport::rdma
