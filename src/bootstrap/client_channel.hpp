// A rank's connection to the bootstrap server: whole frames out and in,
// every wait bounded by a Deadline (poll on a non-blocking socket).
//
// Errors: TimeoutError when the deadline passes (waiting_for() empty: the
// channel does not know who is late; the server's own answers name ranks),
// IoError (rank, peer -1, step, cause) when the connection breaks or the
// server sends bytes that are not a valid frame. Not thread-safe.
#pragma once

#include <netinet/in.h>

#include <string>

#include "bootstrap/wire.hpp"
#include "common/deadline.hpp"
#include "common/fd.hpp"

namespace rcoll::bootstrap {

class ClientChannel {
 public:
  // Connects to `server`, retrying "connection refused" (and other errors
  // that mean "not up yet") with a short backoff until `deadline`: ranks
  // may start before the server listens.
  static ClientChannel connect(const sockaddr_in& server, int rank, Deadline deadline);

  int rank() const noexcept { return rank_; }
  const std::string& server() const noexcept { return server_; }

  // `step` names the operation in errors ("join", "barrier 3", "get 'k'").
  void send(const std::string& frame, Deadline deadline, const std::string& step);
  wire::Frame receive(Deadline deadline, const std::string& step);
  // True once the server closed or reset the connection (the IoError that
  // said so was thrown): a join may reconnect and try again.
  bool broken() const noexcept { return broken_; }

 private:
  ClientChannel(UniqueFd fd, int rank, std::string server);
  [[noreturn]] void timed_out(const std::string& step) const;
  void read_some(const std::string& step);

  UniqueFd fd_;
  int rank_;
  std::string server_;  // "host:port", for messages
  std::string in_;
  bool broken_ = false;
};

}  // namespace rcoll::bootstrap
