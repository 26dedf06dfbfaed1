// The connection handshake (docs/PROTOCOLS.md): the connecting rank sends a
// Hello and the job token, the accepting rank validates them and answers
// accept or refuse. This file has the acceptor's half and the pieces both
// halves share; dialer.hpp has the connector's half.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "common/fd.hpp"
#include "transport/tcp/wire.hpp"

namespace rcoll::transport::tcp {

// Progress of reading a fixed number of bytes from a non-blocking socket.
enum class ReadStatus : std::uint8_t { more, done, closed, error };

// Reads until `got` == `want` (bytes land at buf + got); never reads past
// `want`, so the bytes after a handshake message stay in the socket.
ReadStatus read_exact(int fd, void* buf, std::size_t want, std::size_t& got, int& error);

// Sends an accept/refuse answer in one write (24 bytes into a fresh socket's
// empty buffer). False if the socket did not take all of it.
bool send_reply(int fd, HelloKind kind, RefuseReason reason, int rank, int size);

// Whether the acceptor `self` of a job of `size` ranks and token `job_token`
// takes a connection announced by `hello` + `token`; none means accept.
// Any other rank of the job may connect; whether its connection is the one
// the pair keeps is decided by the caller (TcpTransport::pair_rule).
RefuseReason check_hello(const Hello& hello, const std::string& token, int self, int size,
                         const std::string& job_token);

// An accepted connection whose Hello has not fully arrived.
// States: reading_hello -> reading_token -> complete.
class InboundHandshake {
 public:
  enum class State : std::uint8_t { reading_hello, reading_token, complete };
  using Clock = std::chrono::steady_clock;

  InboundHandshake(UniqueFd fd, std::string from);

  // Reads what has arrived. False when the connection must be dropped
  // (closed, read error, bad magic, oversized token); problem() says why.
  bool on_readable();
  State state() const noexcept { return state_; }
  const Hello& hello() const noexcept { return hello_; }
  const std::string& token() const noexcept { return token_; }
  const std::string& from() const noexcept { return from_; }
  const std::string& problem() const noexcept { return problem_; }
  Clock::time_point since() const noexcept { return since_; }
  int fd() const noexcept { return fd_.get(); }
  UniqueFd take_fd() noexcept { return std::move(fd_); }

 private:
  UniqueFd fd_;
  std::string from_;
  std::string problem_;
  Clock::time_point since_;
  State state_ = State::reading_hello;
  Hello hello_;
  std::string token_;
  std::size_t got_ = 0;
};

std::string_view to_string(InboundHandshake::State state) noexcept;

}  // namespace rcoll::transport::tcp
