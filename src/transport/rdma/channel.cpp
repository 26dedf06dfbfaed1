#include "transport/rdma/channel.hpp"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>

#include "rcoll/errors.hpp"

namespace rcoll::transport::rdma {
namespace {

constexpr std::size_t page = 4096;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Once per queue pair: straight from the system's entropy source, with no
// per-thread generator (a 5 KB thread_local mt19937 kept the library from
// being dlopen'ed).
std::uint32_t random_psn() { return std::random_device{}() & 0xffffff; }

}  // namespace

std::string_view wr_kind_name(WrKind kind) noexcept {
  switch (kind) {
    case WrKind::recv: return "RECV";
    case WrKind::send_bounce: return "SEND";
    case WrKind::send_inline: return "SEND(inline)";
    case WrKind::write: return "RDMA_WRITE";
    case WrKind::write_imm: return "RDMA_WRITE_WITH_IMM";
    case WrKind::probe: return "keep-alive probe (0-byte RDMA_WRITE)";
  }
  return "UNKNOWN";
}

// Library buffers are written before they are registered: a registration
// of untouched anonymous memory could pin the shared zero page.
Channel::Channel(const DeviceHandles& device, const ChannelConfig& config, Where where)
    : where_(where), config_(config), device_(device), psn_(random_psn()) {
  std::size_t ring_bytes = round_up(config_.slot_bytes * static_cast<std::size_t>(config_.ring_slots), page);
  std::size_t send_bytes = round_up(config_.slot_bytes * static_cast<std::size_t>(config_.send_slots), page);
  ring_memory_ = Memory(ring_bytes);
  send_memory_ = Memory(send_bytes);
  std::memset(ring_memory_.get(), 0, ring_bytes);
  std::memset(send_memory_.get(), 0, send_bytes);
  ring_mr_ = register_memory(device_.pd, ring_memory_.get(), ring_bytes, IBV_ACCESS_LOCAL_WRITE, where_);
  send_mr_ = register_memory(device_.pd, send_memory_.get(), send_bytes, IBV_ACCESS_LOCAL_WRITE, where_);
  cq_ = create_cq(device_.context, config_.ring_slots + config_.sq_depth, device_.events, where_);
  for (int i = config_.send_slots; i-- > 0;) free_send_slots_.push_back(static_cast<std::uint32_t>(i));
  posted_.resize(static_cast<std::size_t>(config_.sq_depth));
  // A quarter of the scarcer resource: at most signal_every_ - 1 SENDs wait
  // for a later signaled one, so room always remains to post it.
  signal_every_ = std::max(1, std::min(config_.send_slots, config_.sq_depth) / 4);
}

Channel::~Channel() {
  // The QP goes first (members are destroyed in reverse order); nothing to add.
}

ibv_qp_init_attr Channel::qp_init_attr() {
  ibv_qp_init_attr attr{};
  attr.send_cq = cq_.get();
  attr.recv_cq = cq_.get();
  attr.qp_type = IBV_QPT_RC;
  attr.cap.max_send_wr = static_cast<std::uint32_t>(config_.sq_depth);
  attr.cap.max_recv_wr = static_cast<std::uint32_t>(config_.ring_slots);
  attr.cap.max_send_sge = 2;
  attr.cap.max_recv_sge = 1;
  attr.cap.max_inline_data = config_.max_inline;
  return attr;
}

void Channel::create_qp(const LocalPort& port) {
  ibv_qp_cap cap = qp_init_attr().cap;
  own_qp_ = create_rc_qp(device_.pd, cq_.get(), cap, where_);
  qp_ = own_qp_.get();
  config_.max_inline = cap.max_inline_data;
  qp_to_init(qp_, port, where_);
  post_ring();
}

void Channel::create_qp_on(CmIdPtr id) {
  ibv_qp_init_attr attr = qp_init_attr();
  if (rdma_create_qp(id.get(), device_.pd, &attr) != 0) {
    attr.cap.max_inline_data = 0;
    if (rdma_create_qp(id.get(), device_.pd, &attr) != 0) throw_verb_error(where_, "rdma_create_qp", errno);
  }
  config_.max_inline = attr.cap.max_inline_data;
  cm_id_ = std::move(id);
  qp_ = cm_id_->qp;
  post_ring();
}

void Channel::connect(const LocalPort& port, const RemoteQp& remote) {
  qp_to_rtr(qp_, port, remote, where_);
  qp_to_rts(qp_, psn_, where_);
}

void Channel::set_peer_ring(int slots, std::size_t slot_bytes) {
  peer_slot_bytes_ = slot_bytes;
  peer_slots_ = slots;
  credits_ = slots;
}

std::size_t Channel::eager_capacity() const noexcept {
  return std::min(config_.slot_bytes, peer_slot_bytes_) - sizeof(MsgHeader);
}

void Channel::post_ring() {
  for (int i = 0; i < config_.ring_slots; ++i) post_recv(static_cast<std::size_t>(i));
}

void Channel::post_recv(std::size_t index) {
  ibv_sge sge{};
  sge.addr = reinterpret_cast<std::uintptr_t>(ring_memory_.get() + index * config_.slot_bytes);
  sge.length = static_cast<std::uint32_t>(config_.slot_bytes);
  sge.lkey = ring_mr_->lkey;
  ibv_recv_wr wr{};
  wr.wr_id = make_wr_id(WrKind::recv, index);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int err = ibv_post_recv(qp_, &wr, &bad)) throw_verb_error(where_, "ibv_post_recv", err);
}

bool Channel::can_send(MsgKind kind) const noexcept {
  int reserve = kind == MsgKind::credit ? 0 : 1;
  return credits_ > reserve && sq_used_ < config_.sq_depth && !free_send_slots_.empty();
}

bool Channel::can_write(bool with_imm) const noexcept {
  return sq_used_ < config_.sq_depth && (!with_imm || credits_ > 1);
}

bool Channel::signal_next_send() noexcept {
  if (++since_signal_ < signal_every_) return false;
  since_signal_ = 0;
  return true;
}

void Channel::send(MsgHeader header, const void* payload, std::size_t bytes) {
  header.credits = static_cast<std::uint16_t>(std::min(owed_, 0xffff));
  owed_ -= header.credits;
  --credits_;
  ibv_sge sge[2] = {};
  ibv_send_wr wr{};
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = signal_next_send() ? IBV_SEND_SIGNALED : 0;
  wr.sg_list = sge;
  if (sizeof(header) + bytes <= config_.max_inline) {
    sge[0] = {reinterpret_cast<std::uintptr_t>(&header), sizeof(header), 0};
    sge[1] = {reinterpret_cast<std::uintptr_t>(payload), static_cast<std::uint32_t>(bytes), 0};
    wr.num_sge = bytes > 0 ? 2 : 1;
    wr.send_flags |= IBV_SEND_INLINE;
    wr.wr_id = make_wr_id(WrKind::send_inline, 0);
    ++inline_sends;
    post(wr, "ibv_post_send(SEND)");
  } else {
    std::uint32_t slot = free_send_slots_.back();
    free_send_slots_.pop_back();
    std::byte* at = send_memory_.get() + slot * config_.slot_bytes;
    std::memcpy(at, &header, sizeof(header));
    if (bytes > 0) std::memcpy(at + sizeof(header), payload, bytes);
    sge[0] = {reinterpret_cast<std::uintptr_t>(at), static_cast<std::uint32_t>(sizeof(header) + bytes), send_mr_->lkey};
    wr.num_sge = 1;
    wr.wr_id = make_wr_id(WrKind::send_bounce, slot);
    post(wr, "ibv_post_send(SEND)", static_cast<std::int32_t>(slot));
  }
}

void Channel::write(const void* src, std::size_t bytes, std::uint32_t lkey, std::uint64_t remote_addr,
                    std::uint32_t rkey, std::uint64_t wr_id, std::optional<std::uint32_t> imm) {
  ibv_sge sge{reinterpret_cast<std::uintptr_t>(src), static_cast<std::uint32_t>(bytes), lkey};
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = bytes > 0 ? 1 : 0;
  wr.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = remote_addr;
  wr.wr.rdma.rkey = rkey;
  if (imm) {
    wr.imm_data = htonl(*imm);
    --credits_;
  }
  post(wr, imm ? "ibv_post_send(RDMA_WRITE_WITH_IMM)" : "ibv_post_send(RDMA_WRITE)");
}

void Channel::probe() {
  ibv_send_wr wr{};
  wr.wr_id = make_wr_id(WrKind::probe, 0);
  wr.num_sge = 0;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  post(wr, "ibv_post_send(keep-alive RDMA_WRITE)");
}

void Channel::post(ibv_send_wr& wr, std::string_view what, std::int32_t slot) {
  ibv_send_wr* bad = nullptr;
  if (int err = ibv_post_send(qp_, &wr, &bad)) {
    if (slot >= 0) free_send_slots_.push_back(static_cast<std::uint32_t>(slot));
    throw_verb_error(where_, what, err);
  }
  bool signaled = (wr.send_flags & IBV_SEND_SIGNALED) != 0;
  if (signaled) since_signal_ = 0;
  std::size_t tail = posted_head_ + static_cast<std::size_t>(sq_used_);  // sq_used_ < size: one wrap at most
  posted_[tail < posted_.size() ? tail : tail - posted_.size()] = Posted{signaled, slot};
  ++sq_used_;
}

int Channel::poll(std::span<ibv_wc> out) {
  int n = ibv_poll_cq(cq_.get(), static_cast<int>(out.size()), out.data());
  if (n < 0) throw IoError(where_.rank, where_.peer, "rdma ibv_poll_cq", "failed (" + std::to_string(n) + ")");
  return n;
}

void Channel::on_send_completion() noexcept {
  while (sq_used_ > 0) {
    Posted done = posted_[posted_head_];
    if (++posted_head_ == posted_.size()) posted_head_ = 0;
    --sq_used_;
    if (done.slot >= 0) free_send_slots_.push_back(static_cast<std::uint32_t>(done.slot));
    if (done.signaled) return;
  }
}

std::span<const std::byte> Channel::slot(std::size_t index) const noexcept {
  return {ring_memory_.get() + index * config_.slot_bytes, config_.slot_bytes};
}

void Channel::repost(std::size_t index) {
  post_recv(index);
  ++owed_;
}

void Channel::arm() {
  if (armed_) return;
  if (int err = ibv_req_notify_cq(cq_.get(), 0)) throw_verb_error(where_, "ibv_req_notify_cq", err);
  armed_ = true;
}

void Channel::shut_down() noexcept { qp_to_error(qp_); }

}  // namespace rcoll::transport::rdma
