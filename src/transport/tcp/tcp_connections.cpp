// TCP transport: the listening socket, dialing and accepting connections,
// the rule that keeps one connection per pair, and the timers that bound
// dials and handshakes.
//
// Either rank of a pair may dial (touch()), so both may dial at once. The
// pair keeps the connection dialed by the lower rank, and the lower rank
// alone decides: it accepts a connection from a higher rank only while it has
// not dialed that rank itself, else answers `duplicate` and the higher rank's
// dialer yields. The higher rank accepts a lower rank's connection whenever
// it has none yet, even with its own dial in flight: that dial is sure to be
// refused, because the lower rank has dialed. Frames are written only after
// `accept`, and the two connections of a pair can never both be accepted, so
// no frame goes out on a connection that is then thrown away.
#include <sys/socket.h>

#include <cerrno>

#include "common/log.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"
#include "transport/tcp/endpoint.hpp"
#include "transport/tcp/tcp_transport_impl.hpp"

namespace rcoll::transport::tcp {
namespace {

constexpr int max_accepts_per_event = 16;
// Every lower rank may dial at once (e.g. all ranks to the last one); the
// kernel caps this at net.core.somaxconn.
constexpr int listen_backlog = 4096;

}  // namespace

void TcpTransport::open_listener() {
  listen_ip_ = config_.socket_ifname.empty() ? std::string("0.0.0.0") : interface_ipv4(config_.socket_ifname);
  try {
    listener_ = net::listen_on(listen_ip_, 0, listen_backlog);
    port_ = net::parse_host_port(net::local_address(listener_.get())).port;
    poller_.add(listener_.get(), make_key(SocketRole::listener, 0), false);
  } catch (const IoError& e) {
    throw IoError(config_.rank, -1, "tcp transport: " + e.step(), e.cause());
  }
  log::debug("rank {}: tcp transport listening on {}:{}", config_.rank, listen_ip_, port_);
}

void TcpTransport::start_dial(Peer& peer) {
  int rank = peer.rank();
  if (endpoints_.empty())
    throw InvalidArgument("rank " + std::to_string(config_.rank) +
                          ": tcp transport used before set_peer_endpoints()");
  ConnectTarget target = connect_target(rank, endpoints_[static_cast<std::size_t>(rank)]);
  if (target.host.empty()) return peer.fail("no address known for it (empty endpoint address)");
  peer.set_where(target.host + ":" + std::to_string(target.port));
  Dialer::Params params{config_.rank, config_.size, config_.job_token, rank, {}, config_.connect_timeout};
  try {
    params.address = net::resolve_ipv4(target.host, target.port);
  } catch (const Error& e) {
    return peer.fail(e.what());
  }
  dialers_[static_cast<std::size_t>(rank)] = std::make_unique<Dialer>(std::move(params), poller_);
  settle_dialer(rank);
}

// Acts on a dialer's new state: hands a connected socket to its peer, turns
// a failure into the peer's failure, arms the retry timer while backing off.
// A yielded dialer stays as a marker until the peer's own connection comes.
// A dial that finishes after the pair got its connection the other way
// (a higher rank's dial in flight when the lower rank's arrived) is dropped.
void TcpTransport::settle_dialer(int rank) {
  auto& dialer = dialers_[static_cast<std::size_t>(rank)];
  Peer& peer = peer_at(rank);
  auto state = dialer->state();
  bool finished = state == Dialer::State::connected || state == Dialer::State::failed ||
                  state == Dialer::State::yielded;
  if (finished && peer.state() != Peer::State::unconnected) {
    // Only `yielded` or `failed` is possible here (see the rule at the top);
    // a connected one would break it, and is closed unused.
    if (state == Dialer::State::connected)
      log::warn("rank {}: tcp dial to rank {} was accepted although the pair is {}; closing it unused",
                config_.rank, rank, to_string(peer.state()));
    dialer.reset();
    return;
  }
  switch (state) {
    case Dialer::State::connected: {
      UniqueFd fd = dialer->take_fd();
      dialer.reset();
      peer.attach(std::move(fd));
      break;
    }
    case Dialer::State::failed: {
      std::string cause = dialer->cause();
      dialer.reset();
      peer.fail(cause);
      break;
    }
    case Dialer::State::yielded:
      log::debug("rank {}: tcp dial to rank {} yielded: rank {} is dialing this rank", config_.rank, rank, rank);
      break;
    case Dialer::State::backoff: schedule(dialer->retry_at()); break;
    default: break;
  }
}

bool TcpTransport::on_dialer(int rank, std::uint32_t events) {
  auto& dialer = dialers_[static_cast<std::size_t>(rank)];
  if (!dialer) return false;
  dialer->on_events(events);
  settle_dialer(rank);
  return true;
}

bool TcpTransport::accept_all() {
  bool accepted = false;
  for (int i = 0; i < max_accepts_per_event; ++i) {
    UniqueFd fd(::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        log::warn("rank {}: tcp accept: {}", config_.rank, net::errno_text(errno));
      break;
    }
    std::uint32_t id = next_inbound_++;
    try {
      net::set_nodelay(fd.get());
      poller_.add(fd.get(), make_key(SocketRole::inbound, id), false);
    } catch (const IoError& e) {
      log::warn("rank {}: tcp accept: {}", config_.rank, e.what());
      continue;
    }
    std::string from = net::peer_address(fd.get());
    // Genuine ranks need at most one handshake each (plus a few redials);
    // more means someone else is knocking: turn them away, not the job.
    if (inbound_.size() >= static_cast<std::size_t>(config_.size) + max_extra_handshakes) {
      log::warn("rank {}: tcp accept: refusing {}: {} handshakes already pending", config_.rank, from, inbound_.size());
      continue;  // fd closes here
    }
    inbound_.emplace(id, std::make_unique<InboundHandshake>(std::move(fd), std::move(from)));
    schedule(Clock::now() + handshake_limit());
    accepted = true;
  }
  return accepted;
}

bool TcpTransport::on_inbound(std::uint32_t id) {
  auto it = inbound_.find(id);
  if (it == inbound_.end()) return false;
  InboundHandshake& inbound = *it->second;
  if (!inbound.on_readable()) {
    drop_inbound(id, inbound.problem());
  } else if (inbound.state() == InboundHandshake::State::complete) {
    admit(inbound);
    inbound_.erase(id);
  }
  return true;
}

void TcpTransport::drop_inbound(std::uint32_t id, const std::string& why) {
  auto it = inbound_.find(id);
  log::warn("rank {}: dropped tcp connection from {}: {}", config_.rank, it->second->from(), why);
  poller_.remove(it->second->fd());
  inbound_.erase(it);
}

// Whether a valid connection dialed by `rank` becomes the pair's connection
// (none) or is refused (the rule at the top of this file).
RefuseReason TcpTransport::pair_rule(int rank) {
  switch (peer_at(rank).state()) {
    case Peer::State::failed: return RefuseReason::peer_failed;
    case Peer::State::ready: return RefuseReason::duplicate;
    case Peer::State::unconnected: break;
  }
  bool dialing = dialers_[static_cast<std::size_t>(rank)] != nullptr;
  return rank > config_.rank && dialing ? RefuseReason::duplicate : RefuseReason::none;
}

// Validates a complete Hello; a refused connection is answered, logged and
// closed, and changes nothing else.
void TcpTransport::admit(InboundHandshake& inbound) {
  const Hello& hello = inbound.hello();
  RefuseReason reason = check_hello(hello, inbound.token(), config_.rank, config_.size, config_.job_token);
  if (reason == RefuseReason::none) reason = pair_rule(hello.rank);
  if (reason != RefuseReason::none) {
    // A duplicate is the normal outcome of both ranks dialing at once.
    if (reason == RefuseReason::duplicate)
      log::debug("rank {}: refused tcp connection from {} (rank {}): {}", config_.rank, inbound.from(), hello.rank,
                 to_string(reason));
    else
      log::warn("rank {}: refused tcp connection from {} claiming rank {}: {}", config_.rank, inbound.from(),
                hello.rank, to_string(reason));
    send_reply(inbound.fd(), HelloKind::refuse, reason, config_.rank, config_.size);
    poller_.remove(inbound.fd());
    return;
  }
  if (!send_reply(inbound.fd(), HelloKind::accept, RefuseReason::none, config_.rank, config_.size)) {
    log::warn("rank {}: tcp connection from {} (rank {}) lost during the handshake", config_.rank,
              inbound.from(), hello.rank);
    poller_.remove(inbound.fd());
    return;
  }
  Peer& peer = peer_at(hello.rank);
  peer.set_where(inbound.from());
  peer.attach(inbound.take_fd());
  // This rank's own dial, if any, is not needed now: one with no socket open
  // goes at once; one in flight is dropped by settle_dialer() when the
  // (certain) refusal comes, so the other side never sees a half handshake.
  auto& dialer = dialers_[static_cast<std::size_t>(hello.rank)];
  if (dialer && (dialer->state() == Dialer::State::yielded || dialer->state() == Dialer::State::backoff))
    dialer.reset();
}

// A genuine peer sends its hello right after connecting: a silent client
// holds a slot for this long at most.
std::chrono::milliseconds TcpTransport::handshake_limit() const {
  return std::min<std::chrono::milliseconds>(config_.connect_timeout, std::chrono::seconds(10));
}

// Retries backed-off dials and drops handshakes that never completed.
bool TcpTransport::run_timers() {
  auto now = Clock::now();
  if (now < next_timer_) return false;
  next_timer_ = Clock::time_point::max();
  bool moved = false;
  for (int rank = 0; rank < config_.size; ++rank) {
    auto& dialer = dialers_[static_cast<std::size_t>(rank)];
    if (!dialer || dialer->state() != Dialer::State::backoff) continue;
    dialer->on_timer(now);
    settle_dialer(rank);
    moved = true;
  }
  std::vector<std::uint32_t> expired;
  for (const auto& [id, inbound] : inbound_) {
    auto limit = inbound->since() + handshake_limit();
    if (now >= limit)
      expired.push_back(id);
    else
      schedule(limit);
  }
  for (std::uint32_t id : expired) drop_inbound(id, "no handshake within the handshake limit");
  return moved || !expired.empty();
}

}  // namespace rcoll::transport::tcp
