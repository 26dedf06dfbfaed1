#include "transport/tcp/handshake.hpp"

#include <sys/socket.h>

#include <cerrno>

#include "common/socket_util.hpp"
#include "common/token.hpp"

namespace rcoll::transport::tcp {

std::string_view to_string(InboundHandshake::State state) noexcept {
  switch (state) {
    case InboundHandshake::State::reading_hello: return "reading_hello";
    case InboundHandshake::State::reading_token: return "reading_token";
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

bool send_reply(int fd, HelloKind kind, RefuseReason reason, int rank, int size) {
  Hello reply;
  reply.kind = kind;
  reply.reason = reason;
  reply.rank = rank;
  reply.size = size;
  ssize_t n = ::send(fd, &reply, sizeof(reply), MSG_NOSIGNAL);
  return n == static_cast<ssize_t>(sizeof(reply));
}

RefuseReason check_hello(const Hello& hello, const std::string& token, int self, int size,
                         const std::string& job_token) {
  if (hello.magic != hello_magic || hello.version != wire_version || hello.kind != HelloKind::hello)
    return RefuseReason::bad_version;
  if (hello.size != size) return RefuseReason::bad_size;
  if (!same_token(token, job_token)) return RefuseReason::bad_token;
  if (hello.rank < 0 || hello.rank >= size || hello.rank == self) return RefuseReason::bad_rank;
  return RefuseReason::none;
}

InboundHandshake::InboundHandshake(UniqueFd fd, std::string from)
    : fd_(std::move(fd)), from_(std::move(from)), since_(Clock::now()) {}

bool InboundHandshake::on_readable() {
  int error = 0;
  ReadStatus status = ReadStatus::done;
  if (state_ == State::reading_hello) {
    status = read_exact(fd_.get(), &hello_, sizeof(hello_), got_, error);
    if (status == ReadStatus::done) {
      if (hello_.magic != hello_magic) {
        problem_ = "not an rcoll connection (bad magic)";
        return false;
      }
      if (hello_.token_len > max_token_bytes) {
        problem_ = "job token of " + std::to_string(hello_.token_len) + " bytes is too long";
        return false;
      }
      token_.resize(hello_.token_len);
      got_ = 0;
      state_ = State::reading_token;
    }
  }
  if (state_ == State::reading_token) {
    status = read_exact(fd_.get(), token_.data(), token_.size(), got_, error);
    if (status == ReadStatus::done) state_ = State::complete;
  }
  if (status == ReadStatus::closed) problem_ = "closed during the handshake";
  if (status == ReadStatus::error) problem_ = "recv: " + net::errno_text(error);
  return status == ReadStatus::done || status == ReadStatus::more;
}

}  // namespace rcoll::transport::tcp
