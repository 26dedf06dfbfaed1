// TCP transport: requests, progress and the factory. Connection set-up is in
// tcp_connections.cpp; the protocols are in peer.hpp and the classes it owns.
#include "transport/tcp/tcp_transport.hpp"

#include <algorithm>

#include "common/fd_limit.hpp"
#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "transport/tcp/endpoint.hpp"
#include "transport/tcp/tcp_transport_impl.hpp"

namespace rcoll::transport {
namespace tcp {
namespace {

constexpr std::size_t preferred_segment = 512 * 1024;
constexpr int max_events = 64;
// At most one line a period about strangers' connections (common/drop_summary.hpp).
constexpr std::chrono::seconds drop_report_period{5};

}  // namespace

TcpTransport::TcpTransport(const TransportConfig& config)
    : config_(config),
      send_buffer_(SendBuffer::for_this_host(config.tcp_send_buffer)),
      wakeup_(config.rank),
      drops_("rank " + std::to_string(config.rank) + ": tcp listener", drop_report_period, Clock::now()) {
  if (config_.size < 1 || config_.rank < 0 || config_.rank >= config_.size)
    throw InvalidArgument("tcp transport: rank " + std::to_string(config_.rank) + " is not in a world of " +
                          std::to_string(config_.size));
  log::debug("rank {}: tcp send buffer: {}", config_.rank, send_buffer_.reason);
  // A connection per peer, as many pending handshakes (max_pending), and a few more.
  ensure_fd_limit(static_cast<std::size_t>(config_.size) + max_pending() + 64,
                  "rank " + std::to_string(config_.rank) + ": tcp transport");
  caps_.zero_copy_send = true;
  caps_.zero_copy_recv = true;
  caps_.eager_limit = std::max(free_eager_limit, credited_eager_limit(config_.size));
  caps_.preferred_segment = preferred_segment;
  peers_.resize(static_cast<std::size_t>(config_.size));
  dialers_.resize(static_cast<std::size_t>(config_.size));
  poller_.add(wakeup_.fd(), make_key(SocketRole::wakeup, 0), false);
  open_listener();
}

TcpTransport::~TcpTransport() = default;

std::string TcpTransport::local_endpoint() const { return format_blob(listen_ip_, port_); }

void TcpTransport::set_peer_endpoints(std::vector<PeerEndpoint> endpoints) {
  if (endpoints.size() != static_cast<std::size_t>(config_.size))
    throw InvalidArgument("rank " + std::to_string(config_.rank) + ": tcp transport got " +
                          std::to_string(endpoints.size()) + " peer endpoints for a world of " +
                          std::to_string(config_.size));
  for (int r = 0; r < config_.size; ++r)
    if (r != config_.rank) connect_target(r, endpoints[static_cast<std::size_t>(r)]);
  endpoints_ = std::move(endpoints);
}

void TcpTransport::check_peer(int peer) const {
  if (peer < 0 || peer >= config_.size)
    throw InvalidArgument("rank " + std::to_string(config_.rank) + ": peer " + std::to_string(peer) +
                          " out of range (world of " + std::to_string(config_.size) + ")");
}

Peer& TcpTransport::peer_at(int rank) {
  auto& slot = peers_[static_cast<std::size_t>(rank)];
  if (!slot) {
    const CreditLimits credit{credit_window(config_.size), credited_eager_limit(config_.size)};
    slot = std::make_unique<Peer>(config_.rank, rank, free_eager_limit, poller_, credit, send_buffer_);
  }
  return *slot;
}

// A higher rank dials only when it has something to send: a message always
// travels on a connection its sender started or found, and the common case
// (both ranks use the pair at once) makes fewer connections to throw away.
Peer& TcpTransport::touch(int rank, bool sending) {
  Peer& peer = peer_at(rank);
  bool dials = rank > config_.rank || (sending && rank != config_.rank);
  if (dials && peer.state() == Peer::State::unconnected && !dialers_[static_cast<std::size_t>(rank)])
    start_dial(peer);
  return peer;
}

RequestPtr TcpTransport::isend(int peer, Tag tag, const void* buf, std::size_t bytes) {
  check_peer(peer);
  auto request = make_request(Request::Kind::send, peer, tag, bytes);
  Peer& p = touch(peer, true);
  if (p.state() == Peer::State::failed)
    p.fail_request(*request);
  else
    p.post_send(request, buf, bytes);
  return request;
}

RequestPtr TcpTransport::irecv(int peer, Tag tag, void* buf, std::size_t capacity) {
  check_peer(peer);
  auto request = make_request(Request::Kind::recv, peer, tag, capacity);
  // A failed peer still delivers the complete messages it sent before it
  // went away (post_recv fails the request only when nothing matches).
  touch(peer, false).post_recv(request, buf, capacity);
  return request;
}

void TcpTransport::cancel(Request& request) {
  if (!request.pending()) return;
  check_peer(request.peer());
  if (auto& peer = peers_[static_cast<std::size_t>(request.peer())])
    peer->cancel(request);
  else
    request.mark_cancelled();
}

bool TcpTransport::dispatch(const epoll_event& event) {
  std::uint32_t index = key_index(event.data.u64);
  switch (key_role(event.data.u64)) {
    case SocketRole::listener: return accept_all();
    case SocketRole::peer: return peers_[index] ? peers_[index]->on_events(event.events) : false;
    case SocketRole::dialer: return on_dialer(static_cast<int>(index), event.events);
    case SocketRole::inbound: return on_inbound(index);
    case SocketRole::wakeup: wakeup_.drain(); return false;
  }
  return false;
}

bool TcpTransport::progress() {
  epoll_event events[max_events];
  int n = poller_.wait(events, max_events, std::chrono::microseconds(0));
  bool moved = false;
  for (int i = 0; i < n; ++i) moved = dispatch(events[i]) || moved;
  if (next_timer_ != Clock::time_point::max()) moved = run_timers() || moved;
  return moved;
}

// Only sleeps: the sockets stay readable/writable (level-triggered), so the
// next progress() sees the same events and handles them.
void TcpTransport::wait_for_activity(std::chrono::microseconds max) {
  if (next_timer_ != Clock::time_point::max()) {
    auto until_timer = std::chrono::duration_cast<std::chrono::microseconds>(next_timer_ - Clock::now());
    max = std::max(std::chrono::microseconds(0), std::min(max, until_timer));
  }
  epoll_event events[max_events];
  poller_.wait(events, max_events, max);
}

}  // namespace tcp

std::unique_ptr<Transport> make_tcp_transport(const TransportConfig& config) {
  return std::make_unique<tcp::TcpTransport>(config);
}

}  // namespace rcoll::transport
