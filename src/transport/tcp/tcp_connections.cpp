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

// Why a stranger's connection was dropped, as the summary line says it
// (common/drop_summary.hpp).
namespace drop_reason {
constexpr const char* closed = "closed by the client";
constexpr const char* not_rcoll = "not an rcoll hello";
constexpr const char* bad_proof = "no proof of the job token";
constexpr const char* silent = "silent past the first-frame limit";
constexpr const char* evicted = "evicted by newer ones over the pending cap";
constexpr const char* no_fd = "dropped while out of file descriptors";
}  // namespace drop_reason
namespace {

constexpr int max_accepts_per_event = 16;
// Every lower rank may dial at once (e.g. all ranks to the last one); the
// kernel caps this at net.core.somaxconn.
constexpr int listen_backlog = 4096;

}  // namespace

void TcpTransport::open_listener() {
  listen_ip_ = listen_address(config_);
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

// Strangers cost little and never displace a genuine rank: each accepted
// connection gets a nonce and 24 bytes, and is dropped silently (counted in
// drops_) unless its first frame proves the job token within the
// first-frame limit. Over the cap of pending handshakes the oldest goes,
// not the newest: a genuine dialer answers the challenge within a round
// trip, so it is the newest that is most likely genuine, and an evicted
// genuine dialer dials again (dialer.hpp).
bool TcpTransport::accept_all() {
  bool accepted = false;
  for (int i = 0; i < max_accepts_per_event; ++i) {
    UniqueFd fd(::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if ((errno == EMFILE || errno == ENFILE) && !inbound_.empty()) {
        drop_inbound(inbound_.begin()->first, drop_reason::no_fd);  // frees a descriptor for the next
        continue;
      }
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        log::debug("rank {}: tcp accept: {}", config_.rank, net::errno_text(errno));
      break;
    }
    if (inbound_.size() >= max_pending()) drop_inbound(inbound_.begin()->first, drop_reason::evicted);
    auto inbound = std::make_unique<InboundHandshake>(std::move(fd));
    std::uint32_t id = next_inbound_++;
    try {
      net::set_nodelay(inbound->fd());
      poller_.add(inbound->fd(), make_key(SocketRole::inbound, id), false);
    } catch (const IoError&) {
      note_drop(drop_reason::closed, Clock::now());
      continue;
    }
    if (!inbound->send_challenge()) {
      poller_.remove(inbound->fd());
      note_drop(drop_reason::closed, Clock::now());
      continue;
    }
    inbound_.emplace(id, std::move(inbound));
    schedule(Clock::now() + first_frame_limit());
    accepted = true;
  }
  return accepted;
}

bool TcpTransport::on_inbound(std::uint32_t id) {
  auto it = inbound_.find(id);
  if (it == inbound_.end()) return false;
  InboundHandshake& inbound = *it->second;
  if (!inbound.on_readable()) {
    drop_inbound(id, drop_reason::closed);
  } else if (inbound.state() == InboundHandshake::State::complete) {
    HelloVerdict verdict = verify_hello(inbound.hello(), inbound.nonce(), config_.job_token);
    if (verdict == HelloVerdict::proven) {
      admit(inbound);
      inbound_.erase(id);
    } else {
      drop_inbound(id, verdict == HelloVerdict::not_rcoll ? drop_reason::not_rcoll : drop_reason::bad_proof);
    }
  }
  return true;
}

// Closes an unauthenticated connection without a word to it or to the log.
void TcpTransport::drop_inbound(std::uint32_t id, const char* reason) {
  auto it = inbound_.find(id);
  poller_.remove(it->second->fd());
  inbound_.erase(it);
  note_drop(reason, Clock::now());
}

void TcpTransport::note_drop(const char* reason, Clock::time_point now) {
  drops_.count(reason);
  report_drops(now);
}

void TcpTransport::report_drops(Clock::time_point now) {
  drops_.report_if_due(now);
  if (auto next = drops_.next_report()) schedule(*next);
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

// Answers a Hello that proved the job token; a refused connection is
// answered (with this rank's proof, which the dial race relies on: a
// dialer believes no unproven refusal), logged and closed, and changes
// nothing else.
void TcpTransport::admit(InboundHandshake& inbound) {
  const Hello& hello = inbound.hello();
  const std::string from = net::peer_address(inbound.fd());
  RefuseReason reason = check_hello(hello, config_.rank, config_.size);
  if (reason == RefuseReason::none) reason = pair_rule(hello.rank);
  HelloKind kind = reason == RefuseReason::none ? HelloKind::accept : HelloKind::refuse;
  Reply reply = make_reply(kind, reason, config_.rank, config_.size, hello, inbound.nonce(), config_.job_token);
  bool sent = send_whole(inbound.fd(), &reply, sizeof(reply));
  if (reason != RefuseReason::none) {
    // A duplicate is the normal outcome of both ranks dialing at once.
    if (reason == RefuseReason::duplicate)
      log::debug("rank {}: refused tcp connection from {} (rank {}): {}", config_.rank, from, hello.rank,
                 to_string(reason));
    else
      log::warn("rank {}: refused tcp connection from {} (rank {} of {}, proven): {}", config_.rank, from,
                hello.rank, hello.size, to_string(reason));
    poller_.remove(inbound.fd());
    return;
  }
  if (!sent) {
    log::warn("rank {}: tcp connection from {} (rank {}) lost during the handshake", config_.rank, from, hello.rank);
    poller_.remove(inbound.fd());
    return;
  }
  Peer& peer = peer_at(hello.rank);
  peer.set_where(from);
  peer.attach(inbound.take_fd());
  // This rank's own dial, if any, is not needed now: one with no socket open
  // goes at once; one in flight is dropped by settle_dialer() when the
  // (certain) refusal comes, so the other side never sees a half handshake.
  auto& dialer = dialers_[static_cast<std::size_t>(hello.rank)];
  if (dialer && (dialer->state() == Dialer::State::yielded || dialer->state() == Dialer::State::backoff))
    dialer.reset();
}

// A genuine dialer sends its Hello as soon as the challenge reaches it: a
// silent client holds a slot for this long at most (and a genuine one that
// was too slow dials again).
std::chrono::milliseconds TcpTransport::first_frame_limit() const {
  return std::min<std::chrono::milliseconds>(config_.connect_timeout, std::chrono::seconds(2));
}

// Genuine ranks need at most one handshake each at a time; the rest is room
// for strangers, whom eviction keeps from crowding a genuine one out.
std::size_t TcpTransport::max_pending() const { return static_cast<std::size_t>(config_.size) + 256; }

// Retries backed-off dials, drops handshakes that never completed and
// reports the drops when a report is due.
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
  // Oldest first: the map is ordered by arrival.
  bool expired = false;
  while (!inbound_.empty() && now >= inbound_.begin()->second->since() + first_frame_limit()) {
    drop_inbound(inbound_.begin()->first, drop_reason::silent);
    expired = true;
  }
  if (!inbound_.empty()) schedule(inbound_.begin()->second->since() + first_frame_limit());
  report_drops(now);
  return moved || expired;
}

}  // namespace rcoll::transport::tcp
