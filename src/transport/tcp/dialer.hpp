// The connecting half of a connection: a non-blocking connect, the
// acceptor's Challenge, the Hello that proves the job token, and the
// acceptor's Reply, which must prove it back (handshake.hpp).
//
// States (trace-logged):
//   connecting --connected--> awaiting_challenge --challenge--> sending_hello
//     --all sent--> awaiting_reply --proven accept--> connected
//   connecting --transient error--> backoff --retry time--> connecting
//   awaiting_challenge/sending_hello/awaiting_reply --reset or closed-->
//     backoff: an acceptor under a flood of strangers evicts its oldest
//     unauthenticated connection, which may be this one (tcp_connections.cpp);
//     the dial starts over, backing off exponentially, until the deadline.
//   awaiting_reply --proven refuse(duplicate) from a lower rank--> yielded:
//     that rank is dialing this one, and its connection is the one the pair
//     keeps (docs/PROTOCOLS.md); the socket is closed, nothing is lost.
//   any other error, or an answer that does not prove the token --> failed
//     (cause() says why).
#pragma once

#include <netinet/in.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "common/fd.hpp"
#include "transport/tcp/poller.hpp"
#include "transport/tcp/wire.hpp"

namespace rcoll::transport::tcp {

class Dialer {
 public:
  enum class State : std::uint8_t {
    connecting, backoff, awaiting_challenge, sending_hello, awaiting_reply, connected, yielded, failed,
  };
  using Clock = std::chrono::steady_clock;

  struct Params {
    int self = 0;
    int size = 0;
    std::string job_token;
    int peer = 0;
    sockaddr_in address{};
    std::chrono::milliseconds timeout{0};
  };

  // Starts the first connect at once; its socket is filed in `poller` under
  // the key (dialer, peer).
  Dialer(Params params, Poller& poller);
  ~Dialer();
  Dialer(const Dialer&) = delete;
  Dialer& operator=(const Dialer&) = delete;

  State state() const noexcept { return state_; }
  // Why it failed (errno text, refusal reason), for the peer's IoError.
  const std::string& cause() const noexcept { return cause_; }
  // The socket, once connected; the caller re-files it in the poller.
  UniqueFd take_fd() noexcept { return std::move(fd_); }

  void on_events(std::uint32_t events);
  // In backoff: retries once retry_at() has come.
  void on_timer(Clock::time_point now);
  Clock::time_point retry_at() const noexcept { return retry_at_; }

 private:
  void attempt();
  void after_connect_error(int error);
  void after_lost_handshake(const std::string& what);
  void retry_later();
  void finish_connect();
  void watch(bool writable);
  bool receive(void* message, std::size_t bytes, std::size_t& got, const std::string& step);
  void read_challenge();
  void send_hello();
  void read_reply();
  void check_reply();
  void set_state(State state);
  void fail(std::string cause);
  void close_socket();

  Params params_;
  Poller& poller_;
  UniqueFd fd_;
  State state_ = State::connecting;
  std::string cause_;
  Clock::time_point deadline_;
  Clock::time_point retry_at_;
  std::chrono::milliseconds delay_{1};
  int lost_handshakes_ = 0;  // connections closed by the acceptor before its answer
  // The current attempt's handshake; reset by attempt().
  Challenge challenge_;
  std::size_t challenge_got_ = 0;
  Hello hello_;
  std::size_t hello_sent_ = 0;
  Reply reply_;
  std::size_t reply_got_ = 0;
};

std::string_view to_string(Dialer::State state) noexcept;

}  // namespace rcoll::transport::tcp
