// Everything this rank exchanges with one peer over TCP. The Peer owns the
// pieces and routes between them:
// - Connection: the socket, the frames going out, the stream coming in;
// - the matching of messages to receives (transport/matching/);
// - EagerProtocol (EAGER and CREDIT frames), RendezvousSender (RTS out, CTS
//   in, DATA out) and RendezvousReceiver (RTS in, CTS out, DATA in).
//
// Protocol choice per send (docs/PROTOCOLS.md): at most `eager_limit` bytes
// always go EAGER; up to `credit.eager` bytes go EAGER too while they fit
// the sender's credit (credit_window.hpp); the rest go by rendezvous.
//
// Requests may be posted before the connection exists; sends queue and go out
// in order once attach() hands over the connection. Matching per tag is in
// posting order on both sides, because frames leave and arrive in order.
// A peer that fails (EOF, socket error, protocol violation) fails every
// pending request with an IoError and stays failed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "transport/tcp/connection.hpp"
#include "transport/tcp/eager_protocol.hpp"
#include "transport/tcp/rendezvous_receiver.hpp"
#include "transport/tcp/rendezvous_sender.hpp"

namespace rcoll::transport::tcp {

class Peer final : private FrameSink {
 public:
  enum class State : std::uint8_t { unconnected, ready, failed };

  // `self`: this process's rank; `rank`: the peer's (equal for loopback to
  // self). Both ends of a connection must use the same `eager_limit` and
  // `credit.window`. `send_buffer`: how the socket's kernel send buffer is
  // sized per frame (send_buffer.hpp; default: autotuning).
  Peer(int self, int rank, std::size_t eager_limit, Poller& poller, CreditLimits credit = {},
       SendBuffer send_buffer = {});
  ~Peer() override = default;
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  int rank() const noexcept { return rank_; }
  State state() const noexcept { return state_; }
  // "a.b.c.d:port" of the other side, for error messages.
  void set_where(std::string where) { connection_.set_where(std::move(where)); }

  // The request must be pending. post_send: the peer must not have failed.
  // post_recv on a failed peer still matches complete messages that arrived
  // before the failure, and fails the request otherwise.
  void post_send(const RequestPtr& request, const void* buf, std::size_t bytes);
  void post_recv(const RequestPtr& request, void* buf, std::size_t capacity);
  // After this the peer never touches the request's buffer again.
  void cancel(Request& request);
  // Fails `request` with this peer's failure.
  void fail_request(Request& request) const;

  // Takes over a connected, handshaken socket and sends what is queued.
  void attach(UniqueFd fd);
  // Handles epoll events on the connection; true if anything moved.
  bool on_events(std::uint32_t events);
  // Fails every pending request with `cause` and closes the connection.
  void fail(const std::string& cause);

 private:
  // Which protocol the payload being read belongs to.
  enum class Reading : std::uint8_t { nothing, eager, data };

  std::byte* on_frame(const FrameHeader& header) override;
  void on_payload_done() override;
  bool read();
  bool flush();
  std::vector<RequestPtr> take_pending();

  int self_;
  int rank_;
  State state_ = State::unconnected;
  std::string cause_;
  Reading reading_ = Reading::nothing;
  Connection connection_;
  Matching matching_;
  EagerProtocol eager_;
  RendezvousSender rendezvous_out_;
  RendezvousReceiver rendezvous_in_;
};

std::string_view to_string(Peer::State state) noexcept;

}  // namespace rcoll::transport::tcp
