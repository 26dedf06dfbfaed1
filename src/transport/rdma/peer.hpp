// Everything this rank exchanges with one peer: the connection (Channel,
// made by a connector on first use), the receives posted for the peer and
// the messages that arrived before them (matched per tag, in order), and
// the sends in their protocol states:
//
//   eager send:      queued -> (posted: done)
//   rendezvous send: queued -> awaiting_cts -> writing -> (last write done: done)
//   receive:         posted -> (eager: done)
//                    posted -> cts_queued -> awaiting_data -> (WRITE_WITH_IMM: done)
//                    after a cancel with the CTS out: draining, until the
//                    peer's final WRITE_WITH_IMM or SEND_ABORT says no more
//                    bytes will land in the buffer.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "transport/buffer_pool.hpp"
#include "transport/rdma/channel.hpp"
#include "transport/rdma/mr_cache.hpp"
#include "transport/rdma/rdma_transport.hpp"
#include "transport/request.hpp"

namespace rcoll::transport::rdma {

class Peer;

// What all peers of one transport share; owned by the transport.
struct Core {
  int rank = 0;
  RdmaOptions options;
  DeviceHandles device;
  ChannelConfig channel_config;
  MrCache* cache = nullptr;
  RdmaStats stats;
  std::uint32_t last_id = 0;
  std::vector<Peer*> active;  // peers with a channel, polled by progress()

  // Request ids travel in 32-bit immediates; 0 means "none".
  std::uint32_t new_id() noexcept {
    if (++last_id == 0) ++last_id;
    return last_id;
  }
};

enum class SendState : std::uint8_t { queued, awaiting_cts, writing };
enum class RecvState : std::uint8_t { posted, cts_queued, awaiting_data, draining };
std::string_view state_name(SendState state) noexcept;
std::string_view state_name(RecvState state) noexcept;

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
  bool draining(std::uint32_t recv_id) const;
  bool has_operations() const noexcept { return !sends_.empty() || !recvs_.empty() || !posted_.empty(); }

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
  // Posts what is queued and the credits owed; every keepalive_check_every
  // calls also sends a keep-alive probe if one is due. The idle case is
  // decided here, inline: this runs for every peer in every progress call.
  bool flush() {
    if (link_ != Link::connected) return false;
    bool probe_check = ++quiet_checks_ % keepalive_check_every == 0;
    if (control_.empty() && outbox_.empty() && writers_.empty() && !channel_->owes_credits() && !probe_check)
      return false;
    return flush_queued(probe_check);
  }

 private:
  struct SendOp;
  struct RecvOp;
  using RecvOpPtr = std::unique_ptr<RecvOp>;
  struct Unexpected {
    Tag tag = 0;
    bool rts = false;
    BufferPool::Block payload;       // eager
    std::size_t payload_bytes = 0;   // eager
    std::uint64_t length = 0;        // rts
    std::uint32_t send_id = 0;       // rts
  };

  // peer.cpp: requests, matching, cancellation, failure
  std::uint32_t cancel_recv(const Request& request);
  std::uint32_t cancel_send(const Request& request);
  bool send_eager_now(Tag tag, const void* buf, std::size_t bytes);
  void deliver_to_self(Tag tag, const void* buf, std::size_t bytes);
  void keep_unexpected(Tag tag, const std::byte* data, std::size_t bytes);
  RecvOpPtr take_posted(Tag tag);
  bool take_unexpected(Tag tag, Unexpected& out);
  bool has_unexpected(Tag tag) const;
  RecvOpPtr new_recv_op();
  void recycle(RecvOpPtr op) noexcept;
  void finish_eager_recv(RecvOpPtr op, const std::byte* data, std::size_t bytes);
  std::exception_ptr truncation(Tag tag, std::uint64_t bytes, std::size_t capacity) const;
  void erase_recv(std::uint32_t id);
  void erase_send(std::uint32_t id);

  // peer_messages.cpp: completions and incoming messages
  void on_completion(const ibv_wc& wc);
  void on_failed_completion(const ibv_wc& wc);
  void on_message(const MsgHeader& header, const std::byte* payload, std::size_t payload_bytes);
  void on_eager(const MsgHeader& header, const std::byte* payload, std::size_t bytes);
  void on_rts(const MsgHeader& header);
  void on_write_done(std::uint64_t wr_id, bool final);
  void on_write_imm(std::uint32_t recv_id);
  void on_send_abort(const MsgHeader& header);

  // peer_rendezvous.cpp: RTS/CTS and the writes
  void accept_rts(RecvOpPtr op, std::uint64_t length, std::uint32_t send_id);
  void on_cts(const MsgHeader& header);
  void on_recv_abort(const MsgHeader& header);
  void queue_control(MsgHeader header);
  bool post_outbox();
  bool pump_writes(SendOp& op);
  bool pump_all_writes();
  bool flush_queued(bool probe_check);
  void probe_if_quiet();

  Core& core_;
  int peer_;
  Link link_ = Link::idle;
  std::exception_ptr error_;
  std::unordered_map<std::uint32_t, std::unique_ptr<SendOp>> sends_;
  // Receives are matched per tag in post order, messages in arrival order.
  // Flat lists, searched from the front: they stay short (collectives
  // bound how far ahead they post) and, unlike a map of queues per tag,
  // cost no allocation per message.
  std::vector<RecvOpPtr> posted_;        // waiting for their message
  std::deque<Unexpected> unexpected_;    // arrived before their receive
  std::unordered_map<std::uint32_t, RecvOpPtr> recvs_;  // in the rendezvous (CTS queued or out), by id
  std::vector<RecvOpPtr> spare_recvs_;   // records for reuse
  BufferPool payloads_;                  // unexpected eager payloads
  std::deque<SendOp*> outbox_;     // eager messages and RTS, in isend order
  std::deque<MsgHeader> control_;  // CTS and aborts
  std::vector<SendOp*> writers_;   // rendezvous sends with writes to post or complete
  std::chrono::steady_clock::time_point heard_{};  // last completion seen by probe_if_quiet
  bool heard_since_check_ = false;                 // a completion since probe_if_quiet last read the clock
  // The keep-alive interval is hundreds of milliseconds and a clock read is
  // not free: flush() looks every keepalive_check_every calls.
  static constexpr unsigned keepalive_check_every = 64;
  unsigned quiet_checks_ = 0;
  bool probing_ = false;                           // a keep-alive probe is in flight
  // Last: the QP goes before the operations' registrations are released.
  std::unique_ptr<Channel> channel_;
};

}  // namespace rcoll::transport::rdma
