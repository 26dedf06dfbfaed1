// Lazy QP connection through the job's store (store/store.hpp; by default
// the bootstrap service, hence the mode's name RCOLL_IB_CM=bootstrap).
//
// Rank r, on first use of peer p (or on finding p's key, see discovery):
//   publish:     QP created (INIT), ring posted; set keys::rdma(r, p) = ConnInfo
//   await_info:  poll keys::rdma(p, r); then RTR, RTS; set keys::rdma_ready(r, p)
//   await_ready: poll keys::rdma_ready(p, r); then connected
// The ready key keeps us from sending before p's QP can receive (a QP in
// INIT drops packets, and the sender would run out of retries if p took a
// while to look). Polls are rate-limited (handshake_poll).
//
// Departures: a peer that dies before its QP to us is connected never
// publishes the key we poll, and the keep-alive probe needs a connected
// QP. So while a key is missing we also ask, every departure_check, whether
// the bootstrap service saw p's connection close (keys::departed(p); a
// store that does not track departures leaves it to the connect timeout);
// if it did and the key is still missing on a second look (p may have
// published it and then exited), p fails with an IoError naming it.
//
// Discovery: a peer that sends to us before we ever use it would wait for
// us forever, so an idle rank also looks, one peer at a time at
// discovery_interval, for keys addressed to it.
#include <algorithm>
#include <cstring>
#include <map>

#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "store/keys.hpp"
#include "transport/rdma/connector.hpp"

namespace rcoll::transport::rdma {
namespace {

namespace keys = store::keys;

// How often a handshake waiting for a key asks whether its peer left the
// job: one extra round trip to the service per pending peer at this rate,
// against a few hundred milliseconds to notice a dead peer.
constexpr std::chrono::milliseconds departure_check{250};

class BootstrapConnector final : public Connector {
 public:
  explicit BootstrapConnector(const ConnectorSetup& setup)
      : setup_(setup), port_{setup.device.port, setup.device.gid_index} {}

  void attach_store(store::Store& store) override { store_ = &store; }

  void start(Peer& peer) override {
    if (store_ == nullptr)
      throw IoError(rank(), peer.peer(), "rdma connect", "no store attached (attach_store was not called)");
    peer.set_connecting();
    Channel& channel = peer.make_channel();
    channel.create_qp(port_);
    auto now = std::chrono::steady_clock::now();
    pending_[peer.peer()] = Handshake{Phase::publish, now + setup_.connect_timeout, now, now + departure_check};
    log::debug("rdma peer {}: connecting (QP {:#x}) through store keys", peer.peer(), channel.qpn());
  }

  bool progress(Peers& peers) override {
    // With no handshake under way only discovery is left, which has all
    // the time in the world: skip the clock read on most calls. This check
    // runs in every progress call, so it stays apart from the work.
    if (pending_.empty() && ++idle_calls_ % idle_check_every != 0) return false;
    return advance(peers);
  }

  std::optional<TimePoint> next_timer() const override {
    std::optional<TimePoint> next;
    for (const auto& [peer, h] : pending_) next = next ? std::min(*next, h.next_poll) : h.next_poll;
    if (store_ != nullptr && setup_.core->options.discovery_interval.count() > 0)
      next = next ? std::min(*next, next_discovery_) : next_discovery_;
    return next;
  }

 private:
  [[gnu::noinline]] bool advance(Peers& peers) {
    auto now = std::chrono::steady_clock::now();
    bool moved = false;
    for (auto it = pending_.begin(); it != pending_.end();) {
      Peer& peer = *peers[static_cast<std::size_t>(it->first)];
      bool done = false;
      try {
        moved |= step(peer, it->second, now, done);
        if (!done && now > it->second.deadline) throw IoError(rank(), peer.peer(), "rdma connect", timeout_text(peer, it->second));
      } catch (const Error&) {
        peer.fail(std::current_exception());
        done = moved = true;
      }
      it = done ? pending_.erase(it) : std::next(it);
    }
    if (setup_.core->options.discovery_interval.count() > 0 && now >= next_discovery_) moved |= discover(peers, now);
    return moved;
  }

  enum class Phase { publish, await_info, await_ready };
  struct Handshake {
    Phase phase;
    TimePoint deadline;
    TimePoint next_poll;
    TimePoint next_departure_check;
  };

  int rank() const { return setup_.core->rank; }

  Deadline set_deadline() const { return Deadline::after(setup_.connect_timeout); }

  bool step(Peer& peer, Handshake& h, TimePoint now, bool& done) {
    int p = peer.peer();
    if (peer.link() == Peer::Link::failed) return done = true;
    if (h.phase == Phase::publish) {
      store_->set(keys::rdma(rank(), p), to_hex(local_info(peer)), set_deadline());
      h.phase = Phase::await_info;
      return true;
    }
    if (now < h.next_poll) return false;
    h.next_poll = now + setup_.core->options.handshake_poll;
    if (h.phase == Phase::await_info) {
      auto value = store_->try_get(keys::rdma(p, rank()));
      if (!value) return check_departure(peer, h, now, keys::rdma(p, rank()));
      connect(peer, *value);
      store_->set(keys::rdma_ready(rank(), p), "1", set_deadline());
      h.phase = Phase::await_ready;
      h.next_poll = now;
      return true;
    }
    if (!store_->try_get(keys::rdma_ready(p, rank()))) return check_departure(peer, h, now, keys::rdma_ready(p, rank()));
    peer.on_connected();
    return done = true;
  }

  // The awaited key is missing: throws IoError if the peer left the job
  // (and the key is still missing). Returns false (nothing moved).
  bool check_departure(const Peer& peer, Handshake& h, TimePoint now, const std::string& awaited) {
    if (now < h.next_departure_check) return false;
    h.next_departure_check = now + departure_check;
    int p = peer.peer();
    auto why = store_->try_get(keys::departed(p));
    if (!why || store_->try_get(awaited)) return false;  // found now: the next poll takes it
    throw IoError(rank(), p, "rdma connect",
                  "rank " + std::to_string(p) + " left the job before its RDMA connection to rank " +
                      std::to_string(rank()) + " was made (bootstrap key " + awaited +
                      " never appeared; the bootstrap service says: " + *why + ")");
  }

  ConnInfo local_info(const Peer& peer) const {
    const Channel& channel = *peer.channel();
    ConnInfo info;
    info.mtu = static_cast<std::uint8_t>(setup_.device.active_mtu);
    info.use_gid = setup_.device.gid_index >= 0 ? 1 : 0;
    info.rank = static_cast<std::uint32_t>(rank());
    info.peer = static_cast<std::uint32_t>(peer.peer());
    info.qpn = channel.qpn();
    info.psn = channel.psn();
    info.lid = setup_.device.lid;
    info.ring_slots = static_cast<std::uint32_t>(channel.config().ring_slots);
    info.slot_bytes = static_cast<std::uint32_t>(channel.config().slot_bytes);
    std::memcpy(info.gid, setup_.device.gid.raw, sizeof(info.gid));
    info.token_hash = setup_.token_hash;
    return info;
  }

  void connect(Peer& peer, const std::string& value) {
    int p = peer.peer();
    auto info = conn_info_from_hex(value);
    if (!info)
      throw IoError(rank(), p, "rdma connect", "malformed connection info under " + keys::rdma(p, rank()) +
                                                   " (a different rcoll version?)");
    if (info->rank != static_cast<std::uint32_t>(p) || info->peer != static_cast<std::uint32_t>(rank()))
      throw IoError(rank(), p, "rdma connect", "connection info under " + keys::rdma(p, rank()) + " names ranks " +
                                                   std::to_string(info->rank) + "->" + std::to_string(info->peer));
    if (info->token_hash != setup_.token_hash)
      throw IoError(rank(), p, "rdma connect", "peer presented a different job token");
    RemoteQp remote;
    remote.qpn = info->qpn;
    remote.psn = info->psn;
    remote.lid = info->lid;
    std::memcpy(remote.gid.raw, info->gid, sizeof(info->gid));
    remote.use_gid = info->use_gid != 0 || setup_.device.roce;
    remote.mtu = std::min(setup_.device.active_mtu, static_cast<ibv_mtu>(info->mtu));
    Channel& channel = *peer.channel();
    channel.connect(port_, remote);
    channel.set_peer_ring(static_cast<int>(info->ring_slots), info->slot_bytes);
    log::debug("rdma peer {}: QP {:#x} -> remote QP {:#x} RTS, path mtu {}", p, channel.qpn(), remote.qpn,
               mtu_bytes(remote.mtu));
  }

  std::string timeout_text(const Peer& peer, const Handshake& h) const {
    std::string missing = h.phase == Phase::await_ready ? keys::rdma_ready(peer.peer(), rank()) : keys::rdma(peer.peer(), rank());
    return "peer did not connect within " + std::to_string(setup_.connect_timeout.count()) +
           " ms (bootstrap key " + missing + " never appeared)";
  }

  // Round robin over peers never used: has one of them published for us?
  bool discover(Peers& peers, TimePoint now) {
    next_discovery_ = now + setup_.core->options.discovery_interval;
    if (store_ == nullptr) return false;
    for (std::size_t tries = 0; tries < peers.size(); ++tries) {
      cursor_ = (cursor_ + 1) % peers.size();
      Peer& peer = *peers[cursor_];
      if (peer.is_self() || peer.link() != Peer::Link::idle) continue;
      if (!store_->try_get(keys::rdma(peer.peer(), rank()))) return false;
      log::debug("rdma peer {}: wants to connect (found its bootstrap key)", peer.peer());
      try {
        start(peer);
      } catch (const Error&) {
        peer.fail(std::current_exception());
      }
      return true;
    }
    return false;
  }

  ConnectorSetup setup_;
  LocalPort port_;
  store::Store* store_ = nullptr;
  std::map<int, Handshake> pending_;
  unsigned idle_calls_ = 0;
  static constexpr unsigned idle_check_every = 64;
  TimePoint next_discovery_{};
  std::size_t cursor_ = 0;
};

}  // namespace

std::unique_ptr<Connector> make_bootstrap_connector(const ConnectorSetup& setup) {
  return std::make_unique<BootstrapConnector>(setup);
}

}  // namespace rcoll::transport::rdma
