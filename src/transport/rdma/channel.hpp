// One RC connection to one peer, at the verbs level: its CQ and QP, the ring
// of pre-posted receive buffers the peer SENDs into, the bounce buffers our
// SENDs leave from, and the credits that keep either side from sending more
// than the other has posted receives for. Matching and protocol state live
// in Peer; this class only moves bytes and counts.
//
// Credits: the peer starts with one credit per ring slot we posted. Every
// SEND and every RDMA WRITE WITH IMM consumes one (each consumes a posted
// receive). Each receive we repost is owed back and travels in the
// `credits` field of our next message; an explicit CREDIT message goes when
// half the ring is owed. The last credit is reserved for CREDIT messages, so
// two sides that both ran dry can always return credits to each other.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "topology/placed_buffer.hpp"
#include "transport/rdma/cm.hpp"
#include "transport/rdma/verbs.hpp"
#include "transport/rdma/wire.hpp"

namespace rcoll::transport::rdma {

// What a work request was, kept in the top byte of wr_id (a failed
// completion's opcode field is undefined, so errors are named from this).
enum class WrKind : std::uint8_t { recv = 1, send_bounce = 2, send_inline = 3, write = 4, write_imm = 5, probe = 6 };

inline std::uint64_t make_wr_id(WrKind kind, std::uint64_t value) {
  return static_cast<std::uint64_t>(kind) << 56 | (value & ((std::uint64_t(1) << 56) - 1));
}
inline WrKind wr_kind(std::uint64_t wr_id) { return static_cast<WrKind>(wr_id >> 56); }
inline std::uint64_t wr_value(std::uint64_t wr_id) { return wr_id & ((std::uint64_t(1) << 56) - 1); }
std::string_view wr_kind_name(WrKind kind) noexcept;

struct ChannelConfig {
  int ring_slots = 32;
  std::size_t slot_bytes = sizeof(MsgHeader) + 8192;
  int send_slots = 32;
  int sq_depth = 128;
  std::uint32_t max_inline = 256;
};

struct DeviceHandles {
  ibv_context* context = nullptr;
  ibv_pd* pd = nullptr;
  ibv_comp_channel* events = nullptr;  // null: no event mode
};

class Channel {
 public:
  Channel(const DeviceHandles& device, const ChannelConfig& config, Where where);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Bootstrap path: our own QP, moved to INIT, ring posted.
  void create_qp(const LocalPort& port);
  // rdma_cm path: rdma_create_qp on `id` with qp_init_attr(); ring posted.
  void create_qp_on(CmIdPtr id);
  rdma_cm_id* cm_id() const noexcept { return cm_id_.get(); }
  // Bootstrap path: RTR and RTS towards `remote`.
  void connect(const LocalPort& port, const RemoteQp& remote);
  // Either path, once connected: the peer's ring.
  void set_peer_ring(int slots, std::size_t slot_bytes);

  std::uint32_t qpn() const noexcept { return qp_ != nullptr ? qp_->qp_num : 0; }
  std::uint32_t psn() const noexcept { return psn_; }
  ibv_cq* cq() const noexcept { return cq_.get(); }
  const ChannelConfig& config() const noexcept { return config_; }
  // The largest eager payload both rings take.
  std::size_t eager_capacity() const noexcept;

  // Sending. The caller checks can_send()/can_write() first.
  bool can_send(MsgKind kind) const noexcept;
  void send(MsgHeader header, const void* payload, std::size_t bytes);
  bool can_write(bool with_imm) const noexcept;
  // RDMA WRITE (WITH_IMM carrying `imm` when given) of [src, src + bytes).
  void write(const void* src, std::size_t bytes, std::uint32_t lkey, std::uint64_t remote_addr, std::uint32_t rkey,
             std::uint64_t wr_id, std::optional<std::uint32_t> imm);
  // Keep-alive probe: a 0-byte RDMA WRITE. It consumes no receive and no
  // credit, and the peer's device checks no key for it (IBA C9-88), but
  // it must be ACKed: a peer whose QP is gone makes it fail (retry
  // exceeded). The caller checks can_write(false) first.
  void probe();
  // Half of OUR ring: when the peer is down to its reserved credit, we owe it
  // nearly the whole ring, so this always fires in time.
  bool owes_credits() const noexcept { return owed_ > 0 && owed_ >= std::max(1, config_.ring_slots / 2); }
  // False (and no change) if the peer returns more credits than it could
  // owe: a ring has no more receives than slots.
  bool add_credits(int credits) noexcept {
    if (credits < 0 || credits_ + credits > peer_slots_) return false;
    credits_ += credits;
    return true;
  }

  // Completions.
  int poll(std::span<ibv_wc> out);
  // A successful send-queue completion: retires its work request and the
  // unsignaled SENDs posted before it.
  void on_send_completion() noexcept;
  std::span<const std::byte> slot(std::size_t index) const noexcept;
  // Gives the slot back to the device; its credit is owed to the peer.
  void repost(std::size_t index);
  // Event mode: asks for an event on the next completion; false if the CQ
  // may already hold one (the caller polls again instead of sleeping).
  void arm();
  bool armed() const noexcept { return armed_; }
  void disarm() noexcept { armed_ = false; }

  // Stops the device from touching our memory for this peer (QP to ERROR).
  void shut_down() noexcept;

  std::uint64_t inline_sends = 0;

 private:
  // Page-aligned, on the process's memory node (the NIC's, see src/topology).
  using Memory = topology::PlacedBuffer;

  ibv_qp_init_attr qp_init_attr();
  void post_ring();
  void post_recv(std::size_t index);
  // Posts `wr` and records it in posted_; `slot` is the bounce slot it
  // holds (freed on failure to post, or when the WR retires).
  void post(ibv_send_wr& wr, std::string_view what, std::int32_t slot = -1);
  bool signal_next_send() noexcept;

  Where where_;
  ChannelConfig config_;
  DeviceHandles device_;
  Memory ring_memory_, send_memory_;
  MrPtr ring_mr_, send_mr_;
  CqPtr cq_;
  CmIdPtr cm_id_;  // rdma_cm path: owns the QP
  QpPtr own_qp_;   // bootstrap path
  ibv_qp* qp_ = nullptr;
  std::uint32_t psn_ = 0;
  std::vector<std::uint32_t> free_send_slots_;
  int credits_ = 0;  // SENDs the peer has receives posted for
  int peer_slots_ = 0;  // the peer's ring size: credits never exceed it
  int owed_ = 0;     // receives reposted and not yet announced
  std::size_t peer_slot_bytes_ = 0;
  int sq_used_ = 0;
  // Selective signaling: SENDs are posted unsignaled except every
  // signal_every_-th (the device writes, and we poll, fewer completions).
  // An RC send queue completes in post order, so a signaled completion
  // also retires every unsignaled SEND posted before it. posted_ holds the
  // work requests not yet retired, oldest first.
  struct Posted {
    bool signaled;
    std::int32_t slot;  // bounce slot to free, or -1
  };
  std::vector<Posted> posted_;  // ring of sq_depth entries
  std::size_t posted_head_ = 0;
  int signal_every_ = 1;
  int since_signal_ = 0;  // unsignaled SENDs posted since the last signaled one
  bool armed_ = false;
};

}  // namespace rcoll::transport::rdma
