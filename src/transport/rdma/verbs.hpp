// RAII for libibverbs objects: each handle is a std::unique_ptr whose deleter
// calls the matching destroy verb, and each factory throws IoError (naming
// the rank, the verb and errno) instead of returning null.
//
// Destruction order is the owner's job: a QP before its CQs, CQs before their
// completion channel (with every CQ event acknowledged first, or
// ibv_destroy_cq blocks), MRs and QPs before their PD, everything before the
// device context. Owners get this by declaring members in creation order.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace rcoll::transport::rdma {

template <typename T, int (*Destroy)(T*)>
struct VerbsDeleter {
  void operator()(T* object) const noexcept {
    if (object != nullptr) Destroy(object);
  }
};

struct DeviceListDeleter {
  void operator()(ibv_device** list) const noexcept {
    if (list != nullptr) ibv_free_device_list(list);
  }
};

using DeviceListPtr = std::unique_ptr<ibv_device*, DeviceListDeleter>;
using ContextPtr = std::unique_ptr<ibv_context, VerbsDeleter<ibv_context, ibv_close_device>>;
using PdPtr = std::unique_ptr<ibv_pd, VerbsDeleter<ibv_pd, ibv_dealloc_pd>>;
using CompChannelPtr = std::unique_ptr<ibv_comp_channel, VerbsDeleter<ibv_comp_channel, ibv_destroy_comp_channel>>;
using CqPtr = std::unique_ptr<ibv_cq, VerbsDeleter<ibv_cq, ibv_destroy_cq>>;
using QpPtr = std::unique_ptr<ibv_qp, VerbsDeleter<ibv_qp, ibv_destroy_qp>>;
using MrPtr = std::unique_ptr<ibv_mr, VerbsDeleter<ibv_mr, ibv_dereg_mr>>;

// Who is asking, for error messages.
struct Where {
  int rank = -1;
  int peer = -1;
};

// IoError for a failed verb: "<verb>: <strerror(err)>".
[[noreturn]] void throw_verb_error(Where where, std::string_view verb, int err);

// The devices present; an empty list (not an error) when there are none.
DeviceListPtr device_list(int& count);
ContextPtr open_device(ibv_device* device, Where where);
PdPtr alloc_pd(ibv_context* context, Where where);
// The channel's fd is switched to non-blocking, so that draining events
// never blocks the progress loop.
CompChannelPtr create_comp_channel(ibv_context* context, Where where);
CqPtr create_cq(ibv_context* context, int entries, ibv_comp_channel* channel, Where where);
// Registers exactly [addr, addr + bytes) with `access`.
MrPtr register_memory(ibv_pd* pd, const void* addr, std::size_t bytes, int access, Where where);

// An RC QP whose send and receive completions go to `cq`. `cap` is updated
// with what the device granted (max_inline_data may differ from the ask).
QpPtr create_rc_qp(ibv_pd* pd, ibv_cq* cq, ibv_qp_cap& cap, Where where);

// The remote side of an RC connection, as exchanged out of band.
struct RemoteQp {
  std::uint32_t qpn = 0;
  std::uint32_t psn = 0;
  std::uint16_t lid = 0;
  ibv_gid gid{};
  bool use_gid = false;  // RoCE (always) or routed IB
  ibv_mtu mtu = IBV_MTU_1024;  // the path MTU both sides agreed on
};

struct LocalPort {
  std::uint8_t port = 1;
  int gid_index = -1;  // -1: no GRH (IB without a GID)
};

// RESET -> INIT -> RTR -> RTS with explicit attribute masks. INIT grants
// remote writes at QP level; which memory may be written is decided per MR.
void qp_to_init(ibv_qp* qp, const LocalPort& local, Where where);
void qp_to_rtr(ibv_qp* qp, const LocalPort& local, const RemoteQp& remote, Where where);
void qp_to_rts(ibv_qp* qp, std::uint32_t local_psn, Where where);
// Moves the QP to ERROR: the device stops executing its work requests (no
// more remote writes land in our memory) and flushes the posted ones.
// Never throws (used on failure paths).
void qp_to_error(ibv_qp* qp) noexcept;

// Names for logs and errors.
std::string_view opcode_name(ibv_wr_opcode opcode) noexcept;
std::string mtu_bytes(ibv_mtu mtu);

}  // namespace rcoll::transport::rdma
