// One client connection of the bootstrap server: a non-blocking socket, its
// input and output buffers and its I/O deadline. Knows framing, not the
// protocol's meaning (that is ServerJob's).
//
// I/O deadline (so a slow or silent client costs one fd, never progress):
// - a client that has not joined must have sent its JOIN within
//   hello_timeout of connecting (short: a genuine rank answers the
//   CHALLENGE at once, and retries if it was too slow);
// - a frame that has started arriving must be complete within io_timeout;
// - queued output must make progress within io_timeout.
// A joined client that is idle between requests has no deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "bootstrap/wire.hpp"
#include "common/auth.hpp"
#include "common/fd.hpp"

namespace rcoll::bootstrap {

class ServerSession {
 public:
  using Clock = std::chrono::steady_clock;

  struct Timeouts {
    std::chrono::milliseconds io;
    std::chrono::milliseconds hello;
  };

  // `challenge`: the nonce this connection's CHALLENGE carries (fresh for
  // every connection; the fuzzer fixes it so seeds can hold valid proofs).
  ServerSession(UniqueFd fd, Clock::time_point now, Timeouts timeouts, const auth::Nonce& challenge);

  int fd() const noexcept { return fd_.get(); }
  const std::string& peer() const noexcept { return peer_; }        // "ip:port", for logs
  const std::string& peer_ip() const noexcept { return peer_ip_; }  // published as the rank's address

  // The rank once its JOIN was accepted; -1 before.
  int rank() const noexcept { return rank_; }
  void set_rank(int rank) noexcept { rank_ = rank; }
  const auth::Nonce& challenge() const noexcept { return challenge_; }
  Clock::time_point connected() const noexcept { return connected_; }

  // Why a connection that never joined ended, for the server's rate-limited
  // summary (a static string: "evicted", "failed the token proof", ...).
  // Unauthenticated connections get no log line of their own. nullptr: the
  // peer proved the token and its refusal was logged; not counted.
  void set_drop_reason(const char* reason) noexcept { drop_reason_ = reason; }
  const char* drop_reason() const noexcept { return drop_reason_; }

  // Reads what the socket holds (at most a fairness cap per call). Marks
  // the session dead on end of stream or error.
  void read_available(Clock::time_point now);
  // Takes the next complete frame off the input; need_more if none; error
  // for a bad header (the input is then unusable: refuse and close).
  wire::Decoded next_frame(Clock::time_point now);

  // Queues a whole frame for sending; flush() sends what the socket takes.
  void send(std::string frame);
  void flush(Clock::time_point now);
  bool wants_write() const noexcept { return out_offset_ < out_.size(); }

  // Stops reading; the session ends once its output is flushed.
  void close_after_flush() noexcept { closing_ = true; }
  bool closing() const noexcept { return closing_; }
  // Ends the session now; `why` is logged by the server.
  void kill(std::string why);
  bool dead() const noexcept { return dead_; }
  const std::string& why_dead() const noexcept { return why_dead_; }
  // Dead, or closing with nothing left to send.
  bool finished() const noexcept { return dead_ || (closing_ && !wants_write()); }

  std::optional<Clock::time_point> io_deadline() const;
  // Kills the session if its I/O deadline passed; true if it did.
  bool check_io_deadline(Clock::time_point now);

 private:
  UniqueFd fd_;
  std::string peer_;
  std::string peer_ip_;
  std::chrono::milliseconds io_timeout_;
  Clock::time_point connected_;
  Clock::time_point hello_deadline_;
  auth::Nonce challenge_;
  int rank_ = -1;
  const char* drop_reason_ = "closed by the client";
  std::string in_;
  Clock::time_point frame_started_{};  // when the partial frame in `in_` began
  std::string out_;
  std::size_t out_offset_ = 0;
  Clock::time_point last_write_progress_{};
  bool closing_ = false;
  bool dead_ = false;
  std::string why_dead_;
};

}  // namespace rcoll::bootstrap
