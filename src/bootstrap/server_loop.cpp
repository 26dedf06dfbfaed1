#include "bootstrap/server_loop.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/fd_limit.hpp"
#include "common/log.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::bootstrap {
namespace {

// Connections that have not proven the token (yet) beyond the world size.
// A new one over the cap evicts the oldest of them, never a joined rank
// and never the newcomer: a flood cannot exhaust the fd table, and a
// genuine rank, which answers the CHALLENGE within a round trip, is evicted
// only if this many connections arrive during that round trip (it then
// reconnects, client_handshake.cpp).
constexpr std::size_t max_extra_unauthenticated = 256;
constexpr int max_accepts_per_wakeup = 64;
// At most one summary line of closed unauthenticated connections per this.
constexpr std::chrono::seconds drop_report_interval{5};
// After the job ended, how long answers may take to drain before closing.
constexpr std::chrono::milliseconds max_linger{2000};

}  // namespace

ServerLoop::ServerLoop(Settings settings, int listen_fd, int wake_fd, const std::atomic<bool>& stop_requested,
                       std::atomic<int>& joined)
    : settings_(std::move(settings)),
      listen_fd_(listen_fd),
      wake_fd_(wake_fd),
      stop_requested_(stop_requested),
      joined_(joined),
      job_(settings_.size, settings_.job_token, Clock::now() + settings_.join_timeout),
      drops_("bootstrap", drop_report_interval, Clock::now()) {
  // Every rank's session, as many unauthenticated ones, and a few more.
  const auto size = static_cast<std::size_t>(settings_.size);
  ensure_fd_limit(2 * size + max_extra_unauthenticated + 64, "bootstrap");
}

ServerLoop::Result ServerLoop::run() {
  for (;;) {
    auto now = Clock::now();
    if (stop_requested_.load()) break;
    if (job_.over()) {
      if (!linger_until_) {
        linger_until_ = now + std::min(max_linger, settings_.io_timeout);
        wind_down();
      }
      if (sessions_.empty() || now >= *linger_until_) break;
    }
    poll_once(now);
    now = Clock::now();
    job_.expire(now);
    enforce_io_deadlines(now);
    // Reaping can queue answers to other sessions (a lost rank), and
    // answers may be queued for sessions that saw no event: flush all.
    reap();
    flush_all(now);
    reap();
    drops_.report_if_due(now);
    joined_.store(job_.joined());
  }
  drops_.report(Clock::now());
  return result();
}

void ServerLoop::poll_once(Clock::time_point now) {
  pollfds_.clear();
  pollfds_.push_back({wake_fd_, POLLIN, 0});
  bool accepting = !job_.over() && now >= accept_paused_until_;
  pollfds_.push_back({accepting ? listen_fd_ : -1, POLLIN, 0});
  for (const auto& session : sessions_) {
    short events = session->closing() ? 0 : POLLIN;
    if (session->wants_write()) events |= POLLOUT;
    pollfds_.push_back({session->fd(), events, 0});
  }
  int ready = ::poll(pollfds_.data(), pollfds_.size(), poll_timeout_ms(now));
  if (ready < 0) {
    if (errno == EINTR) return;
    throw IoError(-1, -1, "bootstrap server: poll", net::errno_text(errno));
  }
  if (pollfds_[0].revents != 0) {
    std::uint64_t count;
    [[maybe_unused]] auto ignored = ::read(wake_fd_, &count, sizeof(count));
  }
  now = Clock::now();
  // Clients first: a JOIN that arrived is served before new connections
  // can evict its session.
  for (std::size_t i = 2; i < pollfds_.size(); ++i)
    if (pollfds_[i].revents != 0) serve(*sessions_[i - 2], pollfds_[i].revents, now);
  if (pollfds_[1].revents != 0) accept_clients(now);
}

int ServerLoop::poll_timeout_ms(Clock::time_point now) const {
  auto next = now + std::chrono::seconds(1);  // re-check stop_requested_ at least this often
  if (auto job_deadline = job_.next_deadline()) next = std::min(next, *job_deadline);
  if (linger_until_) next = std::min(next, *linger_until_);
  if (auto report = drops_.next_report()) next = std::min(next, *report);
  for (const auto& session : sessions_)
    if (auto deadline = session->io_deadline()) next = std::min(next, *deadline);
  if (next <= now) return 0;
  // Round up: waking a little early would spin until the deadline.
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(next - now).count());
}

void ServerLoop::accept_clients(Clock::time_point now) {
  for (int i = 0; i < max_accepts_per_wakeup; ++i) {
    UniqueFd fd(::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) {
      int error = errno;
      if (error == EINTR || error == ECONNABORTED) continue;
      if (error == EAGAIN || error == EWOULDBLOCK) return;
      log::warn("bootstrap: accept failed: {}; pausing accepts for 100 ms", net::errno_text(error));
      accept_paused_until_ = now + std::chrono::milliseconds(100);
      return;
    }
    admit(std::move(fd), now);
  }
}

// A new connection costs a nonce and one small frame until it proves the
// token; nothing about it is logged (drops_ counts the ones that end).
void ServerLoop::admit(UniqueFd fd, Clock::time_point now) {
  evict_oldest_unauthenticated();
  try {
    net::set_nodelay(fd.get());
  } catch (const Error&) {
    // Only latency; the handshake works without it.
  }
  ServerSession::Timeouts timeouts{settings_.io_timeout, settings_.hello_timeout};
  auto& session = *sessions_.emplace_back(std::make_unique<ServerSession>(std::move(fd), now, timeouts,
                                                                          auth::fresh_nonce()));
  session.send(wire::encode(wire::ChallengeMessage{session.challenge()}));
  session.flush(now);
}

void ServerLoop::evict_oldest_unauthenticated() {
  std::size_t waiting = 0;
  ServerSession* oldest = nullptr;  // sessions_ is in accept order
  for (auto& session : sessions_) {
    if (session->rank() >= 0 || session->finished()) continue;
    if (oldest == nullptr) oldest = session.get();
    ++waiting;
  }
  if (oldest == nullptr || waiting < static_cast<std::size_t>(settings_.size) + max_extra_unauthenticated) return;
  oldest->set_drop_reason("evicted by newer connections");
  oldest->kill("evicted");
}

void ServerLoop::serve(ServerSession& session, short revents, Clock::time_point now) {
  if (revents & POLLOUT) session.flush(now);
  if (revents & (POLLIN | POLLHUP | POLLERR)) session.read_available(now);
  for (;;) {
    wire::Decoded decoded = session.next_frame(now);
    if (decoded.status == wire::Decoded::Status::need_more) break;
    if (decoded.status == wire::Decoded::Status::error) {
      job_.refuse(session, decoded.error, decoded.detail);
      break;
    }
    job_.on_frame(session, decoded.frame, now);
  }
  // A closing session is not read any more; a peer that hung up on it is done.
  if (session.closing() && (revents & (POLLHUP | POLLERR)) && !session.wants_write()) session.kill("hung up");
}

void ServerLoop::enforce_io_deadlines(Clock::time_point now) {
  for (auto& session : sessions_) {
    bool waiting_for_join = session->rank() < 0 && !session->closing();
    bool refused = session->rank() < 0 && session->closing();
    if (!session->check_io_deadline(now)) continue;
    if (waiting_for_join)  // counted, not logged: see drops_
      session->set_drop_reason("sent no JOIN in time");
    else if (refused)
      continue;  // keeps the reason it was refused for
    else
      log::warn("bootstrap: dropping {} (rank {}): {}", session->peer(), session->rank(), session->why_dead());
  }
}

void ServerLoop::reap() {
  std::erase_if(sessions_, [&](const std::unique_ptr<ServerSession>& session) {
    if (!session->finished()) return false;
    if (session->rank() < 0 && session->drop_reason() != nullptr)
      drops_.count(session->drop_reason(), session->peer_ip());
    job_.on_disconnect(*session, session->dead() ? session->why_dead() : "was closed by the server");
    return true;
  });
}

void ServerLoop::flush_all(Clock::time_point now) {
  for (auto& session : sessions_)
    if (session->wants_write()) session->flush(now);
}

void ServerLoop::wind_down() {
  for (auto& session : sessions_) {
    if (session->closing()) continue;
    if (session->rank() < 0 && !session->dead()) {
      session->set_drop_reason("the job has ended");
      session->send(wire::encode(wire::ErrorMessage{wire::ErrorCode::server_shutdown, 0, {}, "the job has ended"}));
    }
    session->close_after_flush();
  }
}

ServerLoop::Result ServerLoop::result() const {
  using Outcome = BootstrapServer::Outcome;
  switch (job_.state()) {
    case ServerJob::State::finished: return {Outcome::completed, {}, {}};
    case ServerJob::State::failed: {
      auto code = job_.failure_code();
      Outcome outcome = code == wire::ErrorCode::join_timeout ? Outcome::join_timed_out
                        : code == wire::ErrorCode::rank_lost  ? Outcome::rank_lost
                                                              : Outcome::failed;
      return {outcome, job_.failed_ranks(), job_.failure_text()};
    }
    default:
      return {Outcome::stopped, {}, "stopped while the job was " + std::string(to_string(job_.state()))};
  }
}

}  // namespace rcoll::bootstrap
