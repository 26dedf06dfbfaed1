// A hand-driven TCP transport peer for tests: raw sockets that speak the
// transport's handshake (transport/tcp/handshake.hpp) one step at a time,
// so a test can put each step of a dial race, or a forged step, in a chosen
// order. Every wait progresses the real transport `t` (which moves only
// inside its calls) and gives up after 5 s with an exception.
#pragma once

#include <cstdint>
#include <string>

#include "common/auth.hpp"
#include "common/fd.hpp"
#include "transport/tcp/wire.hpp"
#include "transport/transport.hpp"

namespace rcoll::test::tcp_stand_in {

namespace tcp = transport::tcp;

// Reads exactly `n` bytes from the non-blocking `fd`. Throws at EOF too.
void read_pumping(int fd, void* buf, std::size_t n, transport::Transport& t);
template <typename T>
T read_pumping(int fd, transport::Transport& t) {
  T value;
  read_pumping(fd, &value, sizeof(value), t);
  return value;
}

// True once the real transport has closed `fd`'s other end.
bool closed_by_peer(int fd, transport::Transport& t);

// A non-blocking, connected socket to 127.0.0.1:`port`.
UniqueFd connect_to(std::uint16_t port);
// The port of an endpoint blob ("a.b.c.d:port" or "port").
std::uint16_t port_of(const std::string& endpoint);

// The stand-in's side of a connection it dialed: the Challenge it got and
// the Hello it sent.
struct Dialed {
  UniqueFd fd;
  tcp::Challenge challenge;
  tcp::Hello hello;
};

// Dials the real transport at `endpoint`, waits for its Challenge and
// introduces itself as `rank` of `size`, proving `token`.
Dialed dial_as(int rank, int size, const std::string& token, const std::string& endpoint, transport::Transport& t);
// The real transport's Reply; the test fails if it does not prove `token`.
tcp::Reply read_reply(Dialed& dialed, const std::string& token, transport::Transport& t);

// The stand-in's side of a connection the real transport dialed.
struct Accepted {
  UniqueFd fd;
  auth::Nonce nonce;
  tcp::Hello hello;
};

// The next connection the real transport made to `listener`.
UniqueFd accept_pumping(int listener, transport::Transport& t);
// Accepts it, challenges it, and reads its Hello (the test fails if the
// Hello does not prove `token`).
Accepted accept_and_greet(int listener, const std::string& token, transport::Transport& t);
// Answers the Hello, proving `token`.
void answer(Accepted& accepted, tcp::HelloKind kind, tcp::RefuseReason reason, int rank, int size,
            const std::string& token);

}  // namespace rcoll::test::tcp_stand_in
