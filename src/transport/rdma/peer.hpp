// Everything this rank exchanges with one peer over RDMA. The Peer owns the
// pieces and routes between them:
// - the connection (Channel, made by a connector on first use) and its
//   completions, which it dispatches;
// - the matching of messages to receives (transport/matching/);
// - the sends that could not leave at once, in isend order (the outbox);
// - EagerProtocol, RendezvousSender, RendezvousReceiver and KeepAlive.
// Operation states: send_op.hpp, recv_op.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>

#include "transport/rdma/core.hpp"
#include "transport/rdma/eager_protocol.hpp"
#include "transport/rdma/keep_alive.hpp"
#include "transport/rdma/rendezvous_receiver.hpp"
#include "transport/rdma/rendezvous_sender.hpp"
#include "transport/rdma/unexpected_message.hpp"
#include "transport/request.hpp"

namespace rcoll::transport::rdma {

class Peer {
 public:
  enum class Link : std::uint8_t { idle, connecting, connected, failed };

  Peer(Core& core, int peer);
  ~Peer();
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  int peer() const noexcept { return peer_; }
  Link link() const noexcept { return link_; }
  bool is_self() const noexcept { return peer_ == core_.rank; }

  RequestPtr isend(Tag tag, const void* buf, std::size_t bytes);
  RequestPtr irecv(Tag tag, void* buf, std::size_t capacity);
  // Withdraws the request. Returns the id of a receive that must drain
  // (its CTS is out: the peer may still be writing), else 0.
  std::uint32_t cancel(Request& request);
  bool draining(std::uint32_t recv_id) const { return rendezvous_in_.draining(recv_id); }
  bool has_operations() const noexcept {
    return !outbox_.empty() || rendezvous_out_.busy() || rendezvous_in_.busy() || matching_.has_posted();
  }

  // Connection management, for the connectors.
  Channel& make_channel();
  Channel* channel() const noexcept { return channel_.get(); }
  void set_connecting() noexcept { link_ = Link::connecting; }
  void on_connected();
  // Fails every pending request on this peer (and every later one) with
  // `error`, and stops the device from touching our memory for it.
  void fail(const std::exception_ptr& error);

  // Progress: handle completions, then post what credits and room allow.
  bool poll();
  // Posts what is queued and the credits owed, and now and then sends a
  // keep-alive probe if one is due. The idle case is decided here, inline:
  // this runs for every peer in every progress call.
  bool flush() {
    if (link_ != Link::connected) return false;
    const bool probe_check = keep_alive_.check_due();
    if (outbox_.empty() && !rendezvous_in_.wants_to_post() && !rendezvous_out_.wants_to_post() &&
        !channel_->owes_credits() && !probe_check)
      return false;
    return flush_queued(probe_check);
  }

 private:
  bool send_eager_now(Tag tag, const void* buf, std::size_t bytes);
  void queue_send(const RequestPtr& request, const void* buf, std::size_t bytes);
  bool post_outbox();
  bool withdraw_queued(const Request& request);
  bool flush_queued(bool probe_check);
  void on_completion(const ibv_wc& wc);
  void on_failed_completion(const ibv_wc& wc);
  void on_receive(const ibv_wc& wc);
  void on_message(const MsgHeader& header, const std::byte* payload, std::size_t payload_bytes);

  Core& core_;
  int peer_;
  Link link_ = Link::idle;
  std::exception_ptr error_;
  Matching matching_;
  EagerProtocol eager_;
  RendezvousSender rendezvous_out_;
  RendezvousReceiver rendezvous_in_;
  KeepAlive keep_alive_;
  std::deque<std::unique_ptr<SendOp>> outbox_;  // sends not yet posted, eager or RTS, in isend order
  // Last: the QP goes before the operations' registrations are released.
  std::unique_ptr<Channel> channel_;
};

}  // namespace rcoll::transport::rdma
