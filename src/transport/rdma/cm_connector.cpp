// Connections through librdmacm (RCOLL_IB_CM=rdmacm).
//
// Every rank listens on its device's IPv4 address (local_endpoint() is
// "a.b.c.d:port"). The lower rank of a pair always makes the connection:
//   lower rank r, first use of q:  resolve addr -> resolve route -> QP on
//     the id, ring posted -> rdma_connect(CmPrivate) -> ESTABLISHED (the
//     REP's CmPrivate gives q's ring)
//   higher rank q: accepts r's CONNECT_REQUEST (QP on the new id, ring
//     posted, rdma_accept with its CmPrivate) -> ESTABLISHED
// When the higher rank uses the pair first, it "knocks": a CONNECT_REQUEST
// flagged cm_knock, which the lower rank rejects (with its CmPrivate, the
// sign that it heard) and answers by connecting. A knock rejected without
// that sign never reached the peer (see knock_qpn) and is sent again.
// The event channel's fd is polled from progress()/wait_for_activity();
// a DISCONNECTED event (the peer destroyed its connection) fails the peer.
#include <charconv>
#include <arpa/inet.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "transport/rdma/connector.hpp"

namespace rcoll::transport::rdma {
namespace {

constexpr int resolve_timeout_ms = 2000;
constexpr int listen_backlog = 64;
constexpr auto first_knock_retry = std::chrono::milliseconds(5);
constexpr auto last_knock_retry = std::chrono::milliseconds(500);

// A knock has no QP, but the InfiniBand CM files every REQ under its QPN
// and source GID, and refuses a second REQ with the same pair while the
// first is on file as a stale connection (REJ reason 10) without telling
// the listener. Ranks on one device share its GID: with one QPN for all
// knocks, two at once left one knocker waiting for a connection that never
// came (rdma_rdmacm contract test, 2 to 8 runs in 20). So each (job, rank,
// peer) knocks with a QPN of its own, above the range devices hand out
// (rxe: below 2^17), and a knock refused that way is sent again.
std::uint32_t knock_qpn(std::uint64_t token_hash, int rank, int peer, int size) {
  const std::uint64_t pair = static_cast<std::uint64_t>(rank) * static_cast<std::uint64_t>(size) +
                             static_cast<std::uint64_t>(peer);
  return 0xf00000u | static_cast<std::uint32_t>((token_hash + pair) & 0xfffffu);
}

// Why a connect came back REJECTED, from the InfiniBand CM's reject reason
// (RoCE uses the same): a consumer's reject (rcoll's rdma_reject, or the
// kernel's for a listener whose process is exiting), no listener (the
// process or its transport is gone), or the CM's stale-connection check.
// Seen in the rxe guest when a rank is killed: 8 and 28.
std::string rejection(int status) {
  switch (status) {
    case 28: return "rejected by the peer or its exiting process (status 28)";
    case 8: return "no rdma_cm listener at the peer's address (status 8: its process or transport is gone)";
    case 10: return "refused by the connection manager as a stale connection (status 10)";
    default: return "rejected (status " + std::to_string(status) + ")";
  }
}

enum class Role : std::uint32_t { connect = 1, knock = 2, accept = 3 };

void* cookie(Role role, int peer) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(role) << 32 | static_cast<std::uint32_t>(peer));
}
Role role_of(const rdma_cm_id* id) { return static_cast<Role>(reinterpret_cast<std::uintptr_t>(id->context) >> 32); }
int peer_of(const rdma_cm_id* id) { return static_cast<int>(reinterpret_cast<std::uintptr_t>(id->context) & 0xffffffffu); }

class CmConnector final : public Connector {
 public:
  explicit CmConnector(const ConnectorSetup& setup) : setup_(setup), where_{setup.core->rank, -1} {
    if (setup_.device.ipv4.empty())
      throw IoError(rank(), -1, "rdma device selection",
                    "RCOLL_IB_CM=rdmacm needs an IPv4 address on " + setup_.device.name);
    channel_ = create_event_channel(where_);
    listener_ = create_cm_id(channel_.get(), nullptr, where_);
    sockaddr_in address = ipv4_sockaddr(setup_.device.ipv4, 0);
    if (rdma_bind_addr(listener_.get(), reinterpret_cast<sockaddr*>(&address)) != 0)
      throw_verb_error(where_, "rdma_bind_addr(" + setup_.device.ipv4 + ")", errno);
    if (rdma_listen(listener_.get(), listen_backlog) != 0) throw_verb_error(where_, "rdma_listen", errno);
    endpoint_ = setup_.device.ipv4 + ":" + std::to_string(ntohs(rdma_get_src_port(listener_.get())));
  }

  std::string local_endpoint() const override { return endpoint_; }

  void set_peer_endpoints(const std::vector<PeerEndpoint>& endpoints) override {
    addresses_.clear();
    for (const auto& e : endpoints) {
      auto colon = e.blob.rfind(':');
      if (colon == std::string::npos) {
        addresses_.push_back(std::nullopt);
        continue;
      }
      unsigned port = 0;
      auto digits = std::string_view(e.blob).substr(colon + 1);
      auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
      if (error != std::errc() || end != digits.data() + digits.size() || port == 0 || port > 65535) {
        addresses_.push_back(std::nullopt);  // start() names the peer
        continue;
      }
      addresses_.push_back(ipv4_sockaddr(e.blob.substr(0, colon), static_cast<std::uint16_t>(port)));
    }
  }

  void start(Peer& peer) override {
    int q = peer.peer();
    if (q >= static_cast<int>(addresses_.size()) || !addresses_[static_cast<std::size_t>(q)])
      throw IoError(rank(), q, "rdma_cm connect", "no rdma_cm address for this peer (set_peer_endpoints)");
    peer.set_connecting();
    Role role = rank() < q ? Role::connect : Role::knock;
    pending_[q] = attempt(role, resolve(role, q));
    log::debug("rdma peer {}: {} through rdma_cm", q, role == Role::connect ? "connecting" : "knocking");
  }

  bool progress(Peers& peers) override {
    bool moved = false;
    rdma_cm_event* event = nullptr;
    while (rdma_get_cm_event(channel_.get(), &event) == 0) {
      moved = true;
      try {
        handle(peers, *event);
      } catch (const Error&) {
        fail_from(peers, event->id, std::current_exception());
      }
      rdma_ack_cm_event(event);
      graveyard_.clear();  // ids destroyed only after their events are acknowledged
    }
    moved |= knock_again(peers);
    moved |= check_deadlines(peers);
    return moved;
  }

  std::optional<TimePoint> next_timer() const override {
    std::optional<TimePoint> next;
    for (const auto& [peer, p] : pending_) {
      TimePoint at = p.knock_again ? std::min(*p.knock_again, p.deadline) : p.deadline;
      next = next ? std::min(*next, at) : at;
    }
    return next;
  }

  int fd() const override { return channel_->fd; }

 private:
  struct Pending {
    Role role = Role::connect;
    CmIdPtr id;  // until the QP is made on it (then the channel owns it)
    TimePoint deadline;
    std::optional<TimePoint> knock_again;  // a knock the CM refused: when to send it again
    std::chrono::milliseconds knock_retry = first_knock_retry;
  };

  // A new attempt, due within the connect timeout.
  Pending attempt(Role role, CmIdPtr id) const {
    Pending p;
    p.role = role;
    p.id = std::move(id);
    p.deadline = std::chrono::steady_clock::now() + setup_.connect_timeout;
    return p;
  }

  int rank() const { return setup_.core->rank; }

  // A new id for `role` towards q, its address being resolved (the first
  // step of connecting and of knocking).
  CmIdPtr resolve(Role role, int q) {
    CmIdPtr id = create_cm_id(channel_.get(), cookie(role, q), Where{rank(), q});
    sockaddr_in source = ipv4_sockaddr(setup_.device.ipv4, 0);
    sockaddr_in target = *addresses_[static_cast<std::size_t>(q)];
    if (rdma_resolve_addr(id.get(), reinterpret_cast<sockaddr*>(&source), reinterpret_cast<sockaddr*>(&target),
                          resolve_timeout_ms) != 0)
      throw_verb_error(Where{rank(), q}, "rdma_resolve_addr", errno);
    return id;
  }

  CmPrivate local_private(Role role, int peer) const {
    CmPrivate data;
    data.flags = role == Role::knock ? cm_knock : 0;
    data.rank = static_cast<std::uint32_t>(rank());
    data.peer = static_cast<std::uint32_t>(peer);
    data.ring_slots = static_cast<std::uint32_t>(setup_.core->channel_config.ring_slots);
    data.slot_bytes = static_cast<std::uint32_t>(setup_.core->channel_config.slot_bytes);
    data.token_hash = setup_.token_hash;
    return data;
  }

  // The CmPrivate of a CONNECT_REQUEST or a REP, checked.
  CmPrivate remote_private(const rdma_cm_event& event, int expected_peer) const {
    auto decoded = decode_cm_private(event.param.conn.private_data, event.param.conn.private_data_len);
    if (!decoded.value) throw IoError(rank(), expected_peer, "rdma_cm connect", decoded.problem);
    const CmPrivate& data = *decoded.value;
    if (std::string why = misaddressed(data, expected_peer); !why.empty()) {
      const bool other_job = data.token_hash != setup_.token_hash;  // then name the rank it claims to be
      throw IoError(rank(), other_job ? static_cast<int>(data.rank) : expected_peer, "rdma_cm connect", why);
    }
    return data;
  }

  // Why `data` is not from `expected_peer` (-1: any rank) of this job to
  // this rank; empty when it is.
  std::string misaddressed(const CmPrivate& data, int expected_peer) const {
    if (data.token_hash != setup_.token_hash) return "peer presented a different job token";
    if (data.peer != static_cast<std::uint32_t>(rank()) ||
        (expected_peer >= 0 && data.rank != static_cast<std::uint32_t>(expected_peer)))
      return "connection meant for ranks " + std::to_string(data.rank) + "->" + std::to_string(data.peer);
    return {};
  }

  rdma_conn_param conn_param(const CmPrivate& data) const {
    rdma_conn_param param{};
    param.private_data = &data;
    param.private_data_len = sizeof(data);
    param.responder_resources = 0;  // no RDMA READ or atomics, either way
    param.initiator_depth = 0;
    param.retry_count = 6;
    param.rnr_retry_count = 0;  // credits make RNR a bug, not a wait
    return param;
  }

  void handle(Peers& peers, rdma_cm_event& event) {
    if (event.event == RDMA_CM_EVENT_CONNECT_REQUEST) return on_request(peers, event);
    if (event.id == nullptr || event.id->context == nullptr) return;
    int q = peer_of(event.id);
    Peer& peer = *peers[static_cast<std::size_t>(q)];
    Where where{rank(), q};
    log::trace("rdma peer {}: rdma_cm {} (status {})", q, rdma_event_str(event.event), event.status);
    switch (event.event) {
      case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rdma_resolve_route(event.id, resolve_timeout_ms) != 0) throw_verb_error(where, "rdma_resolve_route", errno);
        return;
      case RDMA_CM_EVENT_ROUTE_RESOLVED: return on_route(peer, event);
      case RDMA_CM_EVENT_ESTABLISHED: return on_established(peer, event);
      case RDMA_CM_EVENT_REJECTED:
        if (role_of(event.id) == Role::knock) return on_knock_rejected(q, event);
        throw IoError(rank(), q, "rdma_cm connect", rejection(event.status));
      case RDMA_CM_EVENT_DISCONNECTED:
        if (peer.link() == Peer::Link::connected) peer.poll();  // take what arrived before the close
        throw IoError(rank(), q, "rdma_cm", "peer disconnected");
      case RDMA_CM_EVENT_ADDR_ERROR:
      case RDMA_CM_EVENT_ROUTE_ERROR:
      case RDMA_CM_EVENT_CONNECT_ERROR:
      case RDMA_CM_EVENT_UNREACHABLE:
      case RDMA_CM_EVENT_DEVICE_REMOVAL:
        throw IoError(rank(), q, "rdma_cm connect", std::string(rdma_event_str(event.event)) + " (status " +
                                                        std::to_string(event.status) + ")");
      default:
        return;
    }
  }

  void on_route(Peer& peer, rdma_cm_event& event) {
    int q = peer.peer();
    auto it = pending_.find(q);
    if (it == pending_.end() || !it->second.id) return;
    Where where{rank(), q};
    if (it->second.role == Role::knock) {
      CmPrivate knock = local_private(Role::knock, q);
      rdma_conn_param param = conn_param(knock);
      param.qp_num = knock_qpn(setup_.token_hash, rank(), q, setup_.size);  // no QP: only a request to connect
      if (rdma_connect(event.id, &param) != 0) throw_verb_error(where, "rdma_connect(knock)", errno);
      return;
    }
    Channel& channel = peer.make_channel();
    channel.create_qp_on(std::move(it->second.id));
    CmPrivate data = local_private(Role::connect, q);
    rdma_conn_param param = conn_param(data);
    if (rdma_connect(channel.cm_id(), &param) != 0) throw_verb_error(where, "rdma_connect", errno);
  }

  void on_request(Peers& peers, rdma_cm_event& event) {
    CmIdPtr id(event.id);  // ours now: rejected requests die with it (after the ack)
    CmPrivate data;
    try {
      data = remote_private(event, -1);
    } catch (const IoError& e) {
      log::warn("rdma: refused an rdma_cm connection: {}", e.what());
      return reject(std::move(id));
    }
    int q = static_cast<int>(data.rank);
    if (q < 0 || q >= static_cast<int>(peers.size()) || q == rank()) return reject(std::move(id));
    Peer& peer = *peers[static_cast<std::size_t>(q)];
    if ((data.flags & cm_knock) != 0 || q > rank()) {  // a knock: we are the one to connect
      const CmPrivate heard = local_private(Role::knock, q);  // tells the knocker it reached us
      reject(std::move(id), &heard);
      if (peer.link() == Peer::Link::idle) start(peer);
      return;
    }
    if (peer.link() == Peer::Link::failed || peer.channel() != nullptr) return reject(std::move(id));
    bury(q);  // our knock, if any, is answered
    peer.set_connecting();
    id->context = cookie(Role::accept, q);
    Channel& channel = peer.make_channel();
    channel.create_qp_on(std::move(id));
    channel.set_peer_ring(static_cast<int>(data.ring_slots), data.slot_bytes);
    CmPrivate ours = local_private(Role::accept, q);
    rdma_conn_param param = conn_param(ours);
    if (rdma_accept(channel.cm_id(), &param) != 0) throw_verb_error(Where{rank(), q}, "rdma_accept", errno);
    pending_[q] = attempt(Role::accept, nullptr);
  }

  void on_established(Peer& peer, rdma_cm_event& event) {
    int q = peer.peer();
    if (role_of(event.id) == Role::connect) {
      CmPrivate data = remote_private(event, q);
      peer.channel()->set_peer_ring(static_cast<int>(data.ring_slots), data.slot_bytes);
    }
    pending_.erase(q);
    log::debug("rdma peer {}: rdma_cm connection established (QP {:#x})", q, peer.channel()->qpn());
    peer.on_connected();
  }

  // Our knock at q came back rejected. With q's CmPrivate, q heard it and
  // connects to us now; without (the CM refused it, see knock_qpn), knock
  // again after a pause that doubles each time, until the deadline.
  void on_knock_rejected(int q, const rdma_cm_event& event) {
    auto sign = decode_cm_private(event.param.conn.private_data, event.param.conn.private_data_len);
    if (sign.value && misaddressed(*sign.value, q).empty()) return bury(q);
    auto it = pending_.find(q);
    if (it == pending_.end() || it->second.role != Role::knock || !it->second.id) return;
    Pending& p = it->second;
    log::debug("rdma peer {}: knock refused before it reached the peer (reject status {}); again in {} ms", q,
               event.status, p.knock_retry.count());
    graveyard_.push_back(std::move(p.id));
    p.knock_again = std::chrono::steady_clock::now() + p.knock_retry;
    p.knock_retry = std::min(2 * p.knock_retry, last_knock_retry);
  }

  // Sends the knocks whose pause is over; true if any went.
  bool knock_again(Peers& peers) {
    auto now = std::chrono::steady_clock::now();
    bool moved = false;
    for (auto it = pending_.begin(); it != pending_.end();) {
      auto& [q, p] = *it;
      if (!p.knock_again || *p.knock_again > now) {
        ++it;
        continue;
      }
      p.knock_again.reset();
      moved = true;
      try {
        p.id = resolve(Role::knock, q);
        ++it;
      } catch (const Error&) {
        peers[static_cast<std::size_t>(q)]->fail(std::current_exception());
        it = pending_.erase(it);
      }
    }
    return moved;
  }

  // Rejects a request, with `sign` as private data when given.
  void reject(CmIdPtr id, const CmPrivate* sign = nullptr) {
    rdma_reject(id.get(), sign, sign != nullptr ? sizeof(*sign) : 0);
    graveyard_.push_back(std::move(id));
  }

  // Forgets the pending attempt with `q`; its id (if still ours) goes later.
  void bury(int q) {
    auto it = pending_.find(q);
    if (it == pending_.end()) return;
    if (it->second.id) graveyard_.push_back(std::move(it->second.id));
    it->second.knock_again.reset();
    if (it->second.role == Role::knock) it->second.role = Role::accept;  // now waiting for the peer
  }

  void fail_from(Peers& peers, rdma_cm_id* id, const std::exception_ptr& error) {
    if (id == nullptr || id->context == nullptr) return;
    int q = peer_of(id);
    bury(q);
    pending_.erase(q);
    peers[static_cast<std::size_t>(q)]->fail(error);
  }

  bool check_deadlines(Peers& peers) {
    auto now = std::chrono::steady_clock::now();
    bool moved = false;
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (now <= it->second.deadline) {
        ++it;
        continue;
      }
      int q = it->first;
      if (it->second.id) graveyard_.push_back(std::move(it->second.id));
      it = pending_.erase(it);
      peers[static_cast<std::size_t>(q)]->fail(std::make_exception_ptr(
          IoError(rank(), q, "rdma_cm connect", "peer did not connect within " +
                                                    std::to_string(setup_.connect_timeout.count()) + " ms")));
      moved = true;
    }
    graveyard_.clear();
    return moved;
  }

  ConnectorSetup setup_;
  Where where_;
  EventChannelPtr channel_;  // declared first: the ids go before it
  CmIdPtr listener_;
  std::string endpoint_;
  std::vector<std::optional<sockaddr_in>> addresses_;
  std::map<int, Pending> pending_;
  std::vector<CmIdPtr> graveyard_;
};

}  // namespace

std::unique_ptr<Connector> make_cm_connector(const ConnectorSetup& setup) {
  return std::make_unique<CmConnector>(setup);
}

}  // namespace rcoll::transport::rdma
