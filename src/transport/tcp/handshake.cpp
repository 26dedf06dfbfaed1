#include "transport/tcp/handshake.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstddef>

#include "common/socket_util.hpp"

namespace rcoll::transport::tcp {
namespace {

// The bytes of a handshake message that its proof vouches for: all before it.
template <typename Message>
std::span<const std::uint8_t> signed_part(const Message& message) noexcept {
  return auth::bytes_of(message).first(offsetof(Message, proof));
}

}  // namespace

std::string_view to_string(InboundHandshake::State state) noexcept {
  switch (state) {
    case InboundHandshake::State::reading_hello: return "reading_hello";
    case InboundHandshake::State::complete: return "complete";
  }
  return "?";
}

ReadStatus read_exact(int fd, void* buf, std::size_t want, std::size_t& got, int& error) {
  while (got < want) {
    ssize_t n = ::recv(fd, static_cast<std::byte*>(buf) + got, want - got, 0);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n == 0) {
      return ReadStatus::closed;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return ReadStatus::more;
    } else if (errno != EINTR) {
      error = errno;
      return ReadStatus::error;
    }
  }
  return ReadStatus::done;
}

bool send_whole(int fd, const void* message, std::size_t bytes) {
  ssize_t n = ::send(fd, message, bytes, MSG_NOSIGNAL);
  return n == static_cast<ssize_t>(bytes);
}

Hello make_hello(int rank, int size, const auth::Nonce& challenge, std::string_view token) {
  Hello hello;
  hello.rank = rank;
  hello.size = size;
  hello.nonce = auth::fresh_nonce();
  hello.proof = auth::prove(token, auth::tcp_dialer, challenge, hello.nonce, signed_part(hello));
  return hello;
}

HelloVerdict verify_hello(const Hello& hello, const auth::Nonce& challenge, std::string_view token) {
  if (hello.magic != hello_magic || hello.version != wire_version || hello.kind != HelloKind::hello)
    return HelloVerdict::not_rcoll;
  auth::Proof expected = auth::prove(token, auth::tcp_dialer, challenge, hello.nonce, signed_part(hello));
  return auth::same_proof(expected, hello.proof) ? HelloVerdict::proven : HelloVerdict::bad_proof;
}

RefuseReason check_hello(const Hello& hello, int self, int size) {
  if (hello.size != size) return RefuseReason::bad_size;
  if (hello.rank < 0 || hello.rank >= size || hello.rank == self) return RefuseReason::bad_rank;
  return RefuseReason::none;
}

Reply make_reply(HelloKind kind, RefuseReason reason, int rank, int size, const Hello& hello, const auth::Nonce& own,
                 std::string_view token) {
  Reply reply;
  reply.kind = kind;
  reply.reason = reason;
  reply.rank = rank;
  reply.size = size;
  reply.proof = auth::prove(token, auth::tcp_acceptor, hello.nonce, own, signed_part(reply));
  return reply;
}

bool verify_reply(const Reply& reply, const Hello& hello, const auth::Nonce& challenge, std::string_view token) {
  auth::Proof expected = auth::prove(token, auth::tcp_acceptor, hello.nonce, challenge, signed_part(reply));
  return auth::same_proof(expected, reply.proof);
}

InboundHandshake::InboundHandshake(UniqueFd fd)
    : fd_(std::move(fd)), since_(Clock::now()), nonce_(auth::fresh_nonce()) {}

bool InboundHandshake::send_challenge() {
  Challenge challenge;
  challenge.nonce = nonce_;
  return send_whole(fd_.get(), &challenge, sizeof(challenge));
}

bool InboundHandshake::on_readable() {
  int error = 0;
  switch (read_exact(fd_.get(), &hello_, sizeof(hello_), got_, error)) {
    case ReadStatus::more: return true;
    case ReadStatus::done: state_ = State::complete; return true;
    case ReadStatus::closed: problem_ = "closed during the handshake"; return false;
    case ReadStatus::error: problem_ = "recv: " + net::errno_text(error); return false;
  }
  return false;
}

}  // namespace rcoll::transport::tcp
