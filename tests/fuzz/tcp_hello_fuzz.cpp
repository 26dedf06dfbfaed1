// Fuzz target: the acceptor's half of the TCP transport's connection
// handshake (transport/tcp/handshake.hpp, wire version 3): challenging a
// fresh connection, reading the dialer's Hello, verifying its proof of the
// job token, deciding, and proving the answer back.
//
// Input: a world size (1-8) and this rank (< size), one byte that picks how
// the bytes are cut into writes (0: all at once), one byte of flags, then
// the bytes the dialer sends. Flags: 1 = the harness signs the first 64
// bytes as a Hello with the job token "fuzz-token" over the nonce of the
// challenge it received (a fuzzer cannot forge an HMAC, so this is how it
// reaches the proven paths); 2 = it signs with another token instead.
// Invariants: the acceptor's first message is a Challenge carrying its
// nonce and nothing else; the handshake completes only with 64 bytes and
// reads nothing beyond them; a Hello is proven exactly when it has our
// magic, version and kind and was signed with our token; check_hello
// accepts only our size and another rank; the Reply made for a proven Hello
// verifies for the dialer with our token and not with another, and no
// fuzzed bytes verify as a Reply.
#include <sys/socket.h>

#include <cstring>
#include <string>

#include "fuzz_support.hpp"
#include "transport/tcp/handshake.hpp"

namespace tcp = rcoll::transport::tcp;

namespace {

const std::string job_token = "fuzz-token";
constexpr std::uint8_t sign_right = 1;
constexpr std::uint8_t sign_wrong = 2;

// The dialer's first 64 bytes with a real proof over `challenge`.
std::string signed_hello(std::string_view stream, const rcoll::auth::Nonce& challenge, const std::string& token) {
  tcp::Hello hello;
  std::memcpy(&hello, stream.data(), std::min(stream.size(), sizeof(hello)));
  tcp::Hello proven = tcp::make_hello(hello.rank, hello.size, challenge, token);
  hello.nonce = proven.nonce;
  // make_hello signs its own header; keep the fuzzed header and sign it.
  hello.proof = rcoll::auth::prove(token, rcoll::auth::tcp_dialer, challenge, hello.nonce,
                                   rcoll::auth::bytes_of(hello).first(offsetof(tcp::Hello, proof)));
  std::string out(reinterpret_cast<const char*>(&hello), sizeof(hello));
  return out + std::string(stream.substr(std::min(stream.size(), sizeof(hello))));
}

void check_decision(const tcp::InboundHandshake& handshake, int self, int size, std::uint8_t flags,
                    std::string_view after) {
  const tcp::Hello& hello = handshake.hello();
  tcp::HelloVerdict verdict = tcp::verify_hello(hello, handshake.nonce(), job_token);
  bool well_formed = hello.magic == tcp::hello_magic && hello.version == tcp::wire_version &&
                     hello.kind == tcp::HelloKind::hello;
  FUZZ_CHECK((verdict == tcp::HelloVerdict::proven) == (well_formed && (flags & sign_right) != 0));
  if (!well_formed) FUZZ_CHECK(verdict == tcp::HelloVerdict::not_rcoll);
  if (verdict != tcp::HelloVerdict::proven) return;
  tcp::RefuseReason reason = tcp::check_hello(hello, self, size);
  FUZZ_CHECK(!tcp::to_string(reason).empty());
  if (reason == tcp::RefuseReason::none)
    FUZZ_CHECK(hello.size == size && hello.rank >= 0 && hello.rank < size && hello.rank != self);
  auto kind = reason == tcp::RefuseReason::none ? tcp::HelloKind::accept : tcp::HelloKind::refuse;
  tcp::Reply reply = tcp::make_reply(kind, reason, self, size, hello, handshake.nonce(), job_token);
  FUZZ_CHECK(tcp::verify_reply(reply, hello, handshake.nonce(), job_token));
  FUZZ_CHECK(!tcp::verify_reply(reply, hello, handshake.nonce(), "other-token"));
  if (after.size() >= sizeof(tcp::Reply)) {  // fuzzed bytes never pass for a Reply
    tcp::Reply fuzzed;
    std::memcpy(&fuzzed, after.data(), sizeof(fuzzed));
    FUZZ_CHECK(!tcp::verify_reply(fuzzed, hello, handshake.nonce(), job_token));
  }
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
  std::uint8_t flags = input.u8() & (sign_right | sign_wrong);
  if (flags == (sign_right | sign_wrong)) flags = sign_right;
  std::string_view fuzzed = input.rest();

  auto sockets = rcoll::fuzz::SocketPair::make();
  int fd = sockets.near.get();
  tcp::InboundHandshake handshake(std::move(sockets.near));
  FUZZ_CHECK(handshake.send_challenge());
  std::string first = sockets.drain();
  FUZZ_CHECK(first.size() == sizeof(tcp::Challenge));
  tcp::Challenge challenge;
  std::memcpy(&challenge, first.data(), sizeof(challenge));
  FUZZ_CHECK(challenge.magic == tcp::hello_magic && challenge.version == tcp::wire_version &&
             challenge.kind == tcp::HelloKind::challenge && challenge.nonce == handshake.nonce());

  std::string stream(fuzzed);
  if (flags != 0) stream = signed_hello(fuzzed, challenge.nonce, flags == sign_right ? job_token : "other-token");
  std::size_t written = 0;
  bool alive = true;
  while (alive && handshake.state() != tcp::InboundHandshake::State::complete && written < stream.size()) {
    std::size_t piece = cut == 0 ? stream.size() - written : std::min(cut, stream.size() - written);
    written += sockets.feed(std::string_view(stream).substr(written, piece));
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
  std::string_view after = std::string_view(stream).substr(sizeof(tcp::Hello));
  check_decision(handshake, self, world, flags, after);
  // Exactly the Hello was read: the next byte is still there.
  if (written > sizeof(tcp::Hello)) {
    char next = 0;
    FUZZ_CHECK(::recv(fd, &next, 1, MSG_PEEK) == 1 && next == stream[sizeof(tcp::Hello)]);
  }
  return 0;
}
