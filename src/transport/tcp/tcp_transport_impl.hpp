// The TCP transport's class (private to src/transport/tcp/). The public
// entry point is make_tcp_transport() in tcp_transport.hpp.
//
// One epoll set holds the listening socket, the connections being dialed,
// the accepted connections whose handshake is still arriving, and the
// ready connections, each under a key naming its role (poller.hpp).
// Connections: a rank dials a peer on its first isend to it (the lower rank
// also on its first irecv), so a send never waits for its receiver to use
// the pair; when both dial, the lower rank's connection wins (pair_rule()).
// Requests: tcp_transport.cpp; connection set-up: tcp_connections.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <map>
#include <vector>

#include "common/event_fd.hpp"
#include "common/fd.hpp"
#include "transport/factory.hpp"
#include "transport/tcp/dialer.hpp"
#include "common/drop_summary.hpp"
#include "transport/tcp/handshake.hpp"
#include "transport/tcp/peer.hpp"
#include "transport/tcp/poller.hpp"
#include "transport/tcp/send_buffer.hpp"

namespace rcoll::transport::tcp {

class TcpTransport final : public Transport {
 public:
  using Clock = std::chrono::steady_clock;

  explicit TcpTransport(const TransportConfig& config);
  ~TcpTransport() override;

  std::string_view name() const override { return "tcp"; }
  const Capabilities& capabilities() const override { return caps_; }
  int rank() const override { return config_.rank; }
  int size() const override { return config_.size; }
  std::string local_endpoint() const override;
  void set_peer_endpoints(std::vector<PeerEndpoint> endpoints) override;

  RequestPtr isend(int peer, Tag tag, const void* buf, std::size_t bytes) override;
  RequestPtr irecv(int peer, Tag tag, void* buf, std::size_t capacity) override;
  void cancel(Request& request) override;
  bool progress() override;
  void wait_for_activity(std::chrono::microseconds max) override;
  void wake() override { wakeup_.signal(); }

 private:
  void check_peer(int peer) const;
  Peer& peer_at(int rank);
  // The peer, with its connection started if it has none and this rank
  // dials for this use: any rank when `sending`, the lower rank always.
  Peer& touch(int rank, bool sending);
  bool dispatch(const epoll_event& event);

  // tcp_connections.cpp
  void open_listener();
  void start_dial(Peer& peer);
  bool on_dialer(int rank, std::uint32_t events);
  void settle_dialer(int rank);
  bool accept_all();
  bool on_inbound(std::uint32_t id);
  RefuseReason pair_rule(int rank);
  void admit(InboundHandshake& inbound);
  void drop_inbound(std::uint32_t id, const char* reason);
  // Counts a stranger's dropped connection; the summary line is due at most once a period.
  void note_drop(const char* reason, Clock::time_point now);
  void report_drops(Clock::time_point now);
  bool run_timers();
  std::chrono::milliseconds first_frame_limit() const;
  std::size_t max_pending() const;
  void schedule(Clock::time_point when) { next_timer_ = std::min(next_timer_, when); }

  TransportConfig config_;
  Capabilities caps_;
  SendBuffer send_buffer_;
  Poller poller_;  // declared first: outlives every socket filed in it
  EventFd wakeup_;  // in poller_: wake() ends an epoll wait
  UniqueFd listener_;
  std::string listen_ip_;
  std::uint16_t port_ = 0;
  std::vector<PeerEndpoint> endpoints_;
  std::vector<std::unique_ptr<Peer>> peers_;      // index = rank; created on first use
  // index = rank; while dialing, and once yielded (the peer's connection is
  // coming) until that connection is admitted, so that no second dial starts.
  std::vector<std::unique_ptr<Dialer>> dialers_;
  // Unauthenticated connections, by arrival (the first is the oldest).
  std::map<std::uint32_t, std::unique_ptr<InboundHandshake>> inbound_;
  DropSummary drops_;
  std::uint32_t next_inbound_ = 0;
  Clock::time_point next_timer_ = Clock::time_point::max();
};

}  // namespace rcoll::transport::tcp
