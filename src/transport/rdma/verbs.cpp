#include "transport/rdma/verbs.hpp"

#include <fcntl.h>

#include <cerrno>
#include <cstring>

#include "rcoll/errors.hpp"

namespace rcoll::transport::rdma {
namespace {

// Local ACK timeout 4.096 us * 2^15 = 134 ms, 6 retries: a peer that
// vanished is reported within about a second (7 would mean "retry forever"
// to Soft-RoCE, as it does for RNR retries). RNR retry 0: the credit
// scheme guarantees a posted receive for every message, so an RNR NAK is a
// bug that should surface as an error, not be papered over by retries.
constexpr std::uint8_t ack_timeout = 15;
constexpr std::uint8_t retry_count = 6;
constexpr std::uint8_t rnr_retry = 0;
constexpr std::uint8_t min_rnr_timer = 12;

int errno_or(int fallback) { return errno != 0 ? errno : fallback; }

}  // namespace

void throw_verb_error(Where where, std::string_view verb, int err) {
  throw IoError(where.rank, where.peer, "rdma " + std::string(verb), std::strerror(err));
}

DeviceListPtr device_list(int& count) {
  count = 0;
  DeviceListPtr list(ibv_get_device_list(&count));
  if (!list) count = 0;
  return list;
}

ContextPtr open_device(ibv_device* device, Where where) {
  errno = 0;
  ContextPtr context(ibv_open_device(device));
  if (!context) throw_verb_error(where, std::string("ibv_open_device ") + ibv_get_device_name(device), errno_or(ENODEV));
  return context;
}

PdPtr alloc_pd(ibv_context* context, Where where) {
  errno = 0;
  PdPtr pd(ibv_alloc_pd(context));
  if (!pd) throw_verb_error(where, "ibv_alloc_pd", errno_or(ENOMEM));
  return pd;
}

CompChannelPtr create_comp_channel(ibv_context* context, Where where) {
  errno = 0;
  CompChannelPtr channel(ibv_create_comp_channel(context));
  if (!channel) throw_verb_error(where, "ibv_create_comp_channel", errno_or(ENOMEM));
  int flags = fcntl(channel->fd, F_GETFL);
  if (flags < 0 || fcntl(channel->fd, F_SETFL, flags | O_NONBLOCK) < 0)
    throw_verb_error(where, "fcntl(O_NONBLOCK) on the completion channel", errno);
  return channel;
}

CqPtr create_cq(ibv_context* context, int entries, ibv_comp_channel* channel, Where where) {
  errno = 0;
  CqPtr cq(ibv_create_cq(context, entries, nullptr, channel, 0));
  if (!cq) throw_verb_error(where, "ibv_create_cq(" + std::to_string(entries) + " entries)", errno_or(ENOMEM));
  return cq;
}

MrPtr register_memory(ibv_pd* pd, const void* addr, std::size_t bytes, int access, Where where) {
  errno = 0;
  MrPtr mr(ibv_reg_mr(pd, const_cast<void*>(addr), bytes, access));
  if (!mr) {
    int err = errno_or(ENOMEM);
    std::string verb = "ibv_reg_mr(" + std::to_string(bytes) + " bytes)";
    if (err == ENOMEM || err == EPERM)
      throw IoError(where.rank, where.peer, "rdma " + verb,
                    std::string(std::strerror(err)) +
                        " (pinned-memory limit? raise it with ulimit -l unlimited or /etc/security/limits.conf)");
    throw_verb_error(where, verb, err);
  }
  return mr;
}

QpPtr create_rc_qp(ibv_pd* pd, ibv_cq* cq, ibv_qp_cap& cap, Where where) {
  ibv_qp_init_attr attr{};
  attr.send_cq = cq;
  attr.recv_cq = cq;
  attr.qp_type = IBV_QPT_RC;
  attr.sq_sig_all = 0;
  attr.cap = cap;
  errno = 0;
  QpPtr qp(ibv_create_qp(pd, &attr));
  if (!qp && cap.max_inline_data > 0) {  // some devices refuse inline data; retry without
    attr.cap.max_inline_data = 0;
    qp.reset(ibv_create_qp(pd, &attr));
  }
  if (!qp) throw_verb_error(where, "ibv_create_qp(RC)", errno_or(ENOMEM));
  cap = attr.cap;
  return qp;
}

void qp_to_init(ibv_qp* qp, const LocalPort& local, Where where) {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = local.port;
  attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
  int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
  if (int err = ibv_modify_qp(qp, &attr, mask)) throw_verb_error(where, "ibv_modify_qp(INIT)", err);
}

void qp_to_rtr(ibv_qp* qp, const LocalPort& local, const RemoteQp& remote, Where where) {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTR;
  attr.path_mtu = remote.mtu;
  attr.dest_qp_num = remote.qpn;
  attr.rq_psn = remote.psn;
  attr.max_dest_rd_atomic = 0;  // we never serve RDMA READ or atomics
  attr.min_rnr_timer = min_rnr_timer;
  attr.ah_attr.dlid = remote.lid;
  attr.ah_attr.port_num = local.port;
  if (remote.use_gid && local.gid_index >= 0) {
    attr.ah_attr.is_global = 1;
    attr.ah_attr.grh.dgid = remote.gid;
    attr.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(local.gid_index);
    attr.ah_attr.grh.hop_limit = 64;
  }
  int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
             IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  if (int err = ibv_modify_qp(qp, &attr, mask)) throw_verb_error(where, "ibv_modify_qp(RTR)", err);
}

void qp_to_rts(ibv_qp* qp, std::uint32_t local_psn, Where where) {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTS;
  attr.timeout = ack_timeout;
  attr.retry_cnt = retry_count;
  attr.rnr_retry = rnr_retry;
  attr.sq_psn = local_psn;
  attr.max_rd_atomic = 0;
  int mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
             IBV_QP_MAX_QP_RD_ATOMIC;
  if (int err = ibv_modify_qp(qp, &attr, mask)) throw_verb_error(where, "ibv_modify_qp(RTS)", err);
}

void qp_to_error(ibv_qp* qp) noexcept {
  if (qp == nullptr) return;
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_ERR;
  ibv_modify_qp(qp, &attr, IBV_QP_STATE);
}

std::string_view opcode_name(ibv_wr_opcode opcode) noexcept {
  switch (opcode) {
    case IBV_WR_SEND: return "SEND";
    case IBV_WR_SEND_WITH_IMM: return "SEND_WITH_IMM";
    case IBV_WR_RDMA_WRITE: return "RDMA_WRITE";
    case IBV_WR_RDMA_WRITE_WITH_IMM: return "RDMA_WRITE_WITH_IMM";
    case IBV_WR_RDMA_READ: return "RDMA_READ";
    default: return "other";
  }
}

std::string mtu_bytes(ibv_mtu mtu) { return std::to_string(128 << static_cast<int>(mtu)); }

}  // namespace rcoll::transport::rdma
