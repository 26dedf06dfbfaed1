#include "transport/rdma/rdma_transport.hpp"

#include <poll.h>

#include <algorithm>
#include <cstring>

#include "common/deadline.hpp"
#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "transport/rdma/rdma_transport_impl.hpp"

namespace rcoll::transport::rdma {
namespace {

using Clock = std::chrono::steady_clock;

// auto mode spins this long inside wait_for_activity before arming the CQs
// (wait_all spins on progress() before it gets here, too).
constexpr auto auto_spin = std::chrono::microseconds(20);
constexpr std::size_t preferred_segment = std::size_t(1) << 20;

// Opens the device the way the connector needs it: rdma_cm ids live on
// librdmacm's own device contexts, so the PD and CQs must be made there.
ibv_context* open_context(const DeviceChoice& device, bool for_rdmacm, int rank, CmDeviceListPtr& cm_devices,
                          ContextPtr& own) {
  Where where{rank, -1};
  if (for_rdmacm) {
    int count = 0;
    cm_devices.reset(rdma_get_devices(&count));
    for (int i = 0; cm_devices && i < count; ++i)
      if (device.name == ibv_get_device_name(cm_devices.get()[i]->device)) return cm_devices.get()[i];
    throw IoError(rank, -1, "rdma device selection", "librdmacm does not list device " + device.name);
  }
  int count = 0;
  DeviceListPtr list = device_list(count);
  for (int i = 0; i < count; ++i)
    if (device.name == ibv_get_device_name(list.get()[i])) {
      own = open_device(list.get()[i], where);
      return own.get();
    }
  throw IoError(rank, -1, "rdma device selection", "device " + device.name + " disappeared");
}

ChannelConfig channel_config(const RdmaOptions& options) {
  ChannelConfig config;
  config.ring_slots = options.ring_slots;
  config.slot_bytes = sizeof(MsgHeader) + options.eager_limit;
  config.send_slots = options.ring_slots;
  config.sq_depth = 2 * options.ring_slots + 2 * options.writes_in_flight;
  return config;
}

}  // namespace

RdmaTransport::RdmaTransport(const TransportConfig& config, const RdmaOptions& options, DeviceChoice device)
    : config_(config), device_(std::move(device)), wakeup_(config.rank) {
  Where where{config.rank, -1};
  bool rdmacm = options.connect == ConnectMode::rdmacm;
  context_ = open_context(device_, rdmacm, config.rank, cm_devices_, own_context_);
  pd_ = alloc_pd(context_, where);
  if (options.poll != PollMode::busy) events_ = create_comp_channel(context_, where);
  MrCache::Limits limits{options.mr_cache, options.mr_cache_entries, options.mr_cache_bytes};
  registrations_ = std::make_shared<BufferRegistration::Owner>(pd_.get(), limits, where);
  core_.rank = config.rank;
  core_.options = options;
  core_.device = DeviceHandles{context_, pd_.get(), events_.get()};
  core_.channel_config = channel_config(options);
  core_.cache = &registrations_->cache;
  ConnectorSetup setup{&core_, device_, token_hash(config.job_token), config.connect_timeout, config.size};
  connector_ = rdmacm ? make_cm_connector(setup) : make_bootstrap_connector(setup);
  for (int r = 0; r < config.size; ++r) peers_.push_back(std::make_unique<Peer>(core_, r));
  caps_.zero_copy_send = true;
  caps_.zero_copy_recv = true;
  caps_.remote_write = true;
  caps_.eager_limit = options.eager_limit;
  caps_.preferred_segment = std::max(preferred_segment, options.chunk_bytes);
  log::debug("rdma: {} ({} connections, {} polling, eager limit {} bytes)", device_.describe(),
             rdmacm ? "rdma_cm" : "bootstrap", options.poll == PollMode::busy ? "busy" : "event", options.eager_limit);
}

RdmaTransport::~RdmaTransport() {
  core_.active.clear();
  peers_.clear();  // QPs and CQs before the connector's ids, the MRs and the PD
}

void RdmaTransport::set_peer_endpoints(std::vector<PeerEndpoint> endpoints) {
  connector_->set_peer_endpoints(endpoints);
}

Peer& RdmaTransport::use(int peer) {
  if (peer < 0 || peer >= config_.size) [[unlikely]]
    throw InvalidArgument("rank " + std::to_string(config_.rank) + ": peer " + std::to_string(peer) +
                          " out of range [0, " + std::to_string(config_.size) + ")");
  Peer& p = *peers_[static_cast<std::size_t>(peer)];
  if (p.link() == Peer::Link::idle && !p.is_self()) [[unlikely]]
    start_connecting(p);
  return p;
}

void RdmaTransport::start_connecting(Peer& peer) {
  try {
    connector_->start(peer);
  } catch (const Error&) {
    peer.fail(std::current_exception());
  }
}

RequestPtr RdmaTransport::isend(int peer, Tag tag, const void* buf, std::size_t bytes) {
  return use(peer).isend(tag, buf, bytes);
}

RequestPtr RdmaTransport::irecv(int peer, Tag tag, void* buf, std::size_t capacity) {
  return use(peer).irecv(tag, buf, capacity);
}

void RdmaTransport::cancel(Request& request) {
  if (!request.pending()) return;
  if (request.peer() < 0 || request.peer() >= config_.size) {
    request.mark_cancelled();
    return;
  }
  Peer& peer = *peers_[static_cast<std::size_t>(request.peer())];
  if (std::uint32_t recv_id = peer.cancel(request)) drain(peer, recv_id);
}

// The peer may be writing into a cancelled receive's buffer: wait until it
// confirms it stopped (its last WRITE_WITH_IMM or a SEND_ABORT), or cut it
// off (QP to ERROR) so that nothing lands after cancel() returns.
void RdmaTransport::drain(Peer& peer, std::uint32_t recv_id) {
  auto limit = std::min<std::chrono::milliseconds>(config_.connect_timeout, std::chrono::seconds(10));
  auto deadline = Deadline::after(limit);
  while (peer.draining(recv_id)) {
    if (deadline.expired()) {
      peer.fail(std::make_exception_ptr(IoError(config_.rank, peer.peer(), "rdma cancel",
                                                "the peer did not stop writing into a cancelled receive within " +
                                                    std::to_string(limit.count()) + " ms")));
      return;
    }
    if (!progress()) wait_for_activity(std::chrono::milliseconds(1));
  }
}

bool RdmaTransport::poll_peers() {
  bool moved = false;
  for (Peer* peer : core_.active) moved |= peer->poll();
  return moved;
}

bool RdmaTransport::progress() {
  bool moved = poll_peers();
  moved |= connector_->progress(peers_);
  for (Peer* peer : core_.active) moved |= peer->flush();
  return moved;
}

void RdmaTransport::wait_for_activity(std::chrono::microseconds max) {
  auto now = Clock::now();
  auto until = now + max;
  if (auto timer = connector_->next_timer()) until = std::min(until, std::max(*timer, now));
  if (!events_)  // busy polling: spin until something moves
    spin(until);
  else if (core_.options.poll != PollMode::automatic || !spin(std::min(until, now + auto_spin)))
    block_for_events(until);
  if (wakeup_.signalled()) wakeup_.drain();
}

// Calls progress() until it moves something (true), wake() is called
// (true), or `until` passes. The clock is read every 8th call: reading it
// costs about as much as a progress() that finds nothing.
bool RdmaTransport::spin(Clock::time_point until) {
  for (unsigned calls = 1;; ++calls) {
    if (progress() || wakeup_.signalled()) return true;
    if (calls % 8 == 0 && Clock::now() >= until) return false;
  }
}

// Arms every CQ, polls once more (a completion that arrived before the arm
// raises no event), then sleeps on the completion channel, the
// connector's fd and the wake-up's.
void RdmaTransport::block_for_events(Clock::time_point until) {
  try {
    for (Peer* peer : core_.active)
      if (peer->link() != Peer::Link::failed) peer->channel()->arm();
  } catch (const IoError& e) {
    log::warn("rdma: {}", e.what());
    return;
  }
  if (poll_peers() || wakeup_.signalled()) return;
  // The connector's fd is -1 when it has none: poll(2) skips a negative fd.
  pollfd fds[3] = {{events_->fd, POLLIN, 0}, {wakeup_.fd(), POLLIN, 0}, {connector_->fd(), POLLIN, 0}};
  const nfds_t count = 3;
  auto left = std::max(until - Clock::now(), Clock::duration::zero());
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
  timespec timeout{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  ::ppoll(fds, count, &timeout, nullptr);
  if (fds[1].revents != 0) wakeup_.drain();
  drain_cq_events();
}

void RdmaTransport::drain_cq_events() {
  if (!events_) return;
  ibv_cq* cq = nullptr;
  void* context = nullptr;
  while (ibv_get_cq_event(events_.get(), &cq, &context) == 0) {
    ibv_ack_cq_events(cq, 1);  // unacknowledged events would block ibv_destroy_cq
    ++core_.stats.cq_events;
    for (Peer* peer : core_.active)
      if (peer->channel()->cq() == cq) peer->channel()->disarm();
  }
}

RdmaStats RdmaTransport::stats() const {
  RdmaStats stats = core_.stats;
  for (Peer* peer : core_.active) stats.inline_messages += peer->channel()->inline_sends;
  const auto& cache = registrations_->cache;
  stats.mr_registrations = cache.stats().registrations;
  stats.mr_cache_hits = cache.stats().hits;
  stats.mr_cache_stale = cache.stats().stale;
  stats.mr_cache_validated = cache.validated();
  return stats;
}

BufferRegistration::~BufferRegistration() {
  if (auto owner = owner_.lock()) owner->cache.unpin(id_);
}

BufferRegistration::BufferRegistration(BufferRegistration&& other) noexcept
    : owner_(std::move(other.owner_)), id_(std::exchange(other.id_, 0)) {}

BufferRegistration& BufferRegistration::operator=(BufferRegistration&& other) noexcept {
  if (this != &other) {
    if (auto owner = owner_.lock()) owner->cache.unpin(id_);
    owner_ = std::move(other.owner_);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

}  // namespace rcoll::transport::rdma

namespace rcoll::transport {

std::unique_ptr<Transport> make_rdma_transport(const TransportConfig& config) {
  return make_rdma_transport(config, config.rdma);
}

std::unique_ptr<Transport> make_rdma_transport(const TransportConfig& config, const rdma::RdmaOptions& options) {
  rdma::DeviceChoice device = rdma::select_device(options, config.rank);
  return std::make_unique<rdma::RdmaTransport>(config, options, std::move(device));
}

std::string rdma::unavailable_reason(const RdmaOptions& options) {
  try {
    rdma::select_device(options, -1);
    return {};
  } catch (const IoError& e) {
    return e.cause();
  } catch (const Error& e) {
    return e.what();
  }
}

rdma::BufferRegistration register_buffer(Transport& transport, void* addr, std::size_t bytes) {
  auto* rdma = dynamic_cast<rdma::RdmaTransport*>(&transport);
  if (rdma == nullptr || bytes == 0) return {};
  auto owner = rdma->registrations();
  return rdma::BufferRegistration(owner, owner->cache.pin(addr, bytes));
}

std::optional<rdma::RdmaStats> rdma_stats(const Transport& transport) {
  auto* rdma = dynamic_cast<const rdma::RdmaTransport*>(&transport);
  if (rdma == nullptr) return std::nullopt;
  return rdma->stats();
}

}  // namespace rcoll::transport
