// The connection handshake (wire.hpp, docs/PROTOCOLS.md): the acceptor
// challenges with a nonce, the dialer answers with a Hello that proves the
// job token, the acceptor answers with a Reply that proves it back. This
// file makes and checks the three messages and holds the acceptor's half;
// dialer.hpp has the dialer's half.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "common/auth.hpp"
#include "common/fd.hpp"
#include "transport/tcp/wire.hpp"

namespace rcoll::transport::tcp {

// Progress of reading a fixed number of bytes from a non-blocking socket.
enum class ReadStatus : std::uint8_t { more, done, closed, error };

// Reads until `got` == `want` (bytes land at buf + got); never reads past
// `want`, so the bytes after a handshake message stay in the socket.
ReadStatus read_exact(int fd, void* buf, std::size_t want, std::size_t& got, int& error);

// Sends a handshake message in one write (at most 64 bytes into a socket
// that has sent nothing else yet). False if the socket did not take all.
bool send_whole(int fd, const void* message, std::size_t bytes);

// --- making and checking the messages ---------------------------------------

// The dialer's Hello for `challenge` (the acceptor's nonce), with a fresh
// nonce of its own and its proof of `token`.
Hello make_hello(int rank, int size, const auth::Nonce& challenge, std::string_view token);

// What an acceptor that sent `challenge` makes of a Hello.
enum class HelloVerdict : std::uint8_t { proven, not_rcoll, bad_proof };
HelloVerdict verify_hello(const Hello& hello, const auth::Nonce& challenge, std::string_view token);

// Whether the acceptor `self` of a job of `size` ranks takes a proven Hello
// (none) or refuses it. Any other rank of the job may connect; whether its
// connection is the one the pair keeps is decided by the caller
// (TcpTransport::pair_rule).
RefuseReason check_hello(const Hello& hello, int self, int size);

// The acceptor's answer to `hello`, proving `token` with its nonce `own`.
Reply make_reply(HelloKind kind, RefuseReason reason, int rank, int size, const Hello& hello, const auth::Nonce& own,
                 std::string_view token);
// Whether `reply` is an answer to `hello` (sent for `challenge`) from
// someone who knows `token`.
bool verify_reply(const Reply& reply, const Hello& hello, const auth::Nonce& challenge, std::string_view token);

// --- the acceptor's half ----------------------------------------------------

// An accepted connection whose Hello has not fully arrived.
// States: reading_hello -> complete.
class InboundHandshake {
 public:
  enum class State : std::uint8_t { reading_hello, complete };
  using Clock = std::chrono::steady_clock;

  // Draws this connection's nonce (IoError if the CSPRNG fails).
  explicit InboundHandshake(UniqueFd fd);

  // Sends the Challenge; false if the connection is already gone.
  bool send_challenge();
  // Reads what has arrived. False when the connection must be dropped
  // (closed, read error); problem() says why.
  bool on_readable();
  State state() const noexcept { return state_; }
  const Hello& hello() const noexcept { return hello_; }
  const auth::Nonce& nonce() const noexcept { return nonce_; }
  const std::string& problem() const noexcept { return problem_; }
  Clock::time_point since() const noexcept { return since_; }
  int fd() const noexcept { return fd_.get(); }
  UniqueFd take_fd() noexcept { return std::move(fd_); }

 private:
  UniqueFd fd_;
  std::string problem_;
  Clock::time_point since_;
  State state_ = State::reading_hello;
  auth::Nonce nonce_;
  Hello hello_;
  std::size_t got_ = 0;
};

std::string_view to_string(InboundHandshake::State state) noexcept;

}  // namespace rcoll::transport::tcp
