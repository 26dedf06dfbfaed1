// Fuzz target: the acceptor's half of the TCP transport's connection
// handshake (transport/tcp/handshake.hpp): reading a dialer's Hello and
// job token from a fresh connection, then deciding whether to accept it.
//
// Input: a world size (1-8) and this rank (< size), one byte that picks
// how the bytes are cut into writes (0: all at once), then the bytes the
// dialer sends. The job token is "fuzz-token".
// Invariants: the handshake completes only with a Hello of our magic and a
// token of exactly token_len (<= max_token_bytes) bytes; it reads nothing
// beyond them (the next byte stays in the socket); a dropped handshake says
// why; check_hello accepts only a Hello of our version and kind, our size,
// our token and another rank of the job.
#include <sys/socket.h>

#include <string>

#include "fuzz_support.hpp"
#include "transport/tcp/handshake.hpp"

namespace tcp = rcoll::transport::tcp;

namespace {

const std::string job_token = "fuzz-token";

void check_decision(const tcp::InboundHandshake& handshake, int self, int size) {
  const tcp::Hello& hello = handshake.hello();
  FUZZ_CHECK(hello.magic == tcp::hello_magic);
  FUZZ_CHECK(hello.token_len <= tcp::max_token_bytes && handshake.token().size() == hello.token_len);
  tcp::RefuseReason reason = tcp::check_hello(hello, handshake.token(), self, size, job_token);
  FUZZ_CHECK(!tcp::to_string(reason).empty());
  if (reason != tcp::RefuseReason::none) return;
  FUZZ_CHECK(hello.version == tcp::wire_version && hello.kind == tcp::HelloKind::hello);
  FUZZ_CHECK(hello.size == size && handshake.token() == job_token);
  FUZZ_CHECK(hello.rank >= 0 && hello.rank < size && hello.rank != self);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rcoll::fuzz::init_process();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rcoll::fuzz::Input input(data, size);
  int world = 1 + input.u8() % 8;
  int self = input.u8() % world;
  std::size_t cut = input.u8();
  std::string_view stream = input.rest();

  auto sockets = rcoll::fuzz::SocketPair::make();
  int fd = sockets.near.get();
  tcp::InboundHandshake handshake(std::move(sockets.near), "fuzz");
  std::size_t written = 0;
  bool alive = true;
  while (alive && handshake.state() != tcp::InboundHandshake::State::complete && written < stream.size()) {
    std::size_t piece = cut == 0 ? stream.size() - written : std::min(cut, stream.size() - written);
    written += sockets.feed(stream.substr(written, piece));
    alive = handshake.on_readable();
  }
  if (alive && handshake.state() != tcp::InboundHandshake::State::complete) {
    sockets.hang_up();  // the dialer gives up mid-handshake
    alive = handshake.on_readable();
    FUZZ_CHECK(!alive);
  }
  if (!alive) {
    FUZZ_CHECK(!handshake.problem().empty());
    return 0;
  }
  check_decision(handshake, self, world);
  // Exactly the Hello and its token were read: the next byte is still there.
  std::size_t used = sizeof(tcp::Hello) + handshake.hello().token_len;
  if (written > used) {
    char next = 0;
    FUZZ_CHECK(::recv(fd, &next, 1, MSG_PEEK) == 1 && next == stream[used]);
  }
  return 0;
}
