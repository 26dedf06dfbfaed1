// The TCP transport's rule for a pair whose ranks dial each other at once
// (docs/PROTOCOLS.md, "Endpoints and connections"): the lower rank's
// connection wins, and the lower rank decides. One side of each pair here is
// a real transport; the other is a hand-driven stand-in speaking the wire
// format over raw sockets, so each step of the race happens in a chosen
// order. The real transport keeps progressing while the stand-in waits.
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "common/deadline.hpp"
#include "common/fd.hpp"
#include "common/socket_util.hpp"
#include "transport/tcp/handshake.hpp"
#include "transport/tcp/tcp_transport.hpp"
#include "transport/tcp/wire.hpp"
#include "transport/wait.hpp"

namespace rcoll::transport::tcp {
namespace {

using namespace std::chrono_literals;

const std::string token = "race";

std::unique_ptr<Transport> make(int rank, int size = 2) {
  TransportConfig config;
  config.rank = rank;
  config.size = size;
  config.job_token = token;
  config.socket_ifname = "127.0.0.1";
  config.connect_timeout = 5s;
  return make_tcp_transport(config);
}

std::uint16_t port_of(const std::string& endpoint) { return net::parse_host_port(endpoint).port; }

// Reads exactly `n` bytes from the non-blocking `fd`, progressing `t` while
// none are there. Throws at EOF, on errors and after 5 s.
void read_pumping(int fd, void* buf, std::size_t n, Transport& t) {
  auto deadline = Deadline::after(5s);
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::recv(fd, static_cast<char*>(buf) + got, n - got, MSG_DONTWAIT);
    if (r > 0) got += static_cast<std::size_t>(r);
    else if (r == 0) throw std::runtime_error("stand-in: connection closed");
    else if (errno != EAGAIN && errno != EINTR) throw std::runtime_error("stand-in: " + net::errno_text(errno));
    else if (deadline.expired()) throw std::runtime_error("stand-in: nothing to read for 5 s");
    else t.progress();
  }
}

template <typename T>
T read_pumping(int fd, Transport& t) {
  T value;
  read_pumping(fd, &value, sizeof(value), t);
  return value;
}

// True once the real transport has closed `fd`'s other end.
bool closed_by_peer(int fd, Transport& t) {
  auto deadline = Deadline::after(5s);
  char byte;
  while (!deadline.expired()) {
    ssize_t r = ::recv(fd, &byte, 1, MSG_DONTWAIT);
    if (r == 0) return true;
    if (r > 0 || (errno != EAGAIN && errno != EINTR)) return false;
    t.progress();
  }
  return false;
}

// The next connection the real transport made to the stand-in's listener.
UniqueFd accept_pumping(int listener, Transport& t) {
  auto deadline = Deadline::after(5s);
  while (!deadline.expired()) {
    UniqueFd fd(::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (fd) return fd;
    t.progress();
  }
  throw std::runtime_error("stand-in: no connection within 5 s");
}

// The stand-in dials the real transport and introduces itself as `rank`.
UniqueFd dial_as(int rank, const std::string& endpoint, std::string job_token = token, int size = 2) {
  int error = 0;
  UniqueFd fd = net::connect_nonblocking(net::resolve_ipv4("127.0.0.1", port_of(endpoint)), error);
  if (error != 0 || !(net::wait_fd(fd.get(), POLLOUT, Deadline::after(5s)) & POLLOUT))
    throw std::runtime_error("stand-in: cannot connect to " + endpoint);
  Hello hello;
  hello.rank = rank;
  hello.size = size;
  hello.token_len = static_cast<std::uint32_t>(job_token.size());
  std::string bytes(reinterpret_cast<const char*>(&hello), sizeof(hello));
  bytes += job_token;
  if (::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size()))
    throw std::runtime_error("stand-in: short write of the hello");
  return fd;
}

// The Hello (and token) the real transport sent on a connection it dialed.
Hello read_hello(int fd, Transport& t) {
  auto hello = read_pumping<Hello>(fd, t);
  std::string got(hello.token_len, '\0');
  read_pumping(fd, got.data(), got.size(), t);
  EXPECT_EQ(got, token);
  return hello;
}

void send_eager(int fd, Tag tag, std::uint32_t value) {
  FrameHeader header;
  header.type = FrameType::eager;
  header.tag = tag;
  header.length = sizeof(value);
  char bytes[sizeof(header) + sizeof(value)];
  std::memcpy(bytes, &header, sizeof(header));
  std::memcpy(bytes + sizeof(header), &value, sizeof(value));
  ASSERT_EQ(::send(fd, bytes, sizeof(bytes), MSG_NOSIGNAL), static_cast<ssize_t>(sizeof(bytes)));
}

// The value of the EAGER frame the real transport sends next on `fd`.
std::uint32_t read_eager(int fd, Tag tag, Transport& t) {
  auto header = read_pumping<FrameHeader>(fd, t);
  EXPECT_EQ(header.type, FrameType::eager);
  EXPECT_EQ(header.tag, tag);
  EXPECT_EQ(header.length, sizeof(std::uint32_t));
  return read_pumping<std::uint32_t>(fd, t);
}

// Rank 0 is dialing rank 1 when rank 1's own dial arrives: rank 0 refuses
// it as a duplicate, and its own connection carries the messages.
TEST(TcpDialRace, LowerRankRefusesTheHigherRanksDialWhileDialingItself) {
  auto t0 = make(0);
  UniqueFd listener = net::listen_on("127.0.0.1", 0);
  t0->set_peer_endpoints({{"127.0.0.1", t0->local_endpoint()}, {"127.0.0.1", net::local_address(listener.get())}});
  std::uint32_t got = 0;
  auto recv = t0->irecv(1, 1, &got, sizeof(got));  // the lower rank dials on a receive too
  UniqueFd dialed = accept_pumping(listener.get(), *t0);
  EXPECT_EQ(read_hello(dialed.get(), *t0).rank, 0);

  UniqueFd second = dial_as(1, t0->local_endpoint());
  auto answer = read_pumping<Hello>(second.get(), *t0);
  EXPECT_EQ(answer.kind, HelloKind::refuse);
  EXPECT_EQ(answer.reason, RefuseReason::duplicate);
  EXPECT_TRUE(closed_by_peer(second.get(), *t0));

  ASSERT_TRUE(send_reply(dialed.get(), HelloKind::accept, RefuseReason::none, 1, 2));
  send_eager(dialed.get(), 1, 77);
  wait(*t0, recv, Deadline::after(5s), "recv");
  EXPECT_EQ(got, 77u);
  std::uint32_t value = 78;
  auto send = t0->isend(1, 2, &value, sizeof(value));
  EXPECT_EQ(read_eager(dialed.get(), 2, *t0), 78u);
  wait(*t0, send, Deadline::after(5s), "send");
}

// Rank 1 has dialed rank 0 to send; rank 0's connection arrives before the
// answer. Rank 1 takes it at once and sends on it; when rank 0 then refuses
// rank 1's dial, rank 1 drops that one quietly.
TEST(TcpDialRace, HigherRankTakesTheLowerRanksConnectionWhileItsOwnDialWaits) {
  auto t1 = make(1);
  UniqueFd listener = net::listen_on("127.0.0.1", 0);
  t1->set_peer_endpoints({{"127.0.0.1", net::local_address(listener.get())}, {"127.0.0.1", t1->local_endpoint()}});
  std::uint32_t value = 5;
  auto send = t1->isend(0, 2, &value, sizeof(value));
  UniqueFd its_dial = accept_pumping(listener.get(), *t1);
  EXPECT_EQ(read_hello(its_dial.get(), *t1).rank, 1);

  UniqueFd ours = dial_as(0, t1->local_endpoint());
  auto answer = read_pumping<Hello>(ours.get(), *t1);
  EXPECT_EQ(answer.kind, HelloKind::accept);
  EXPECT_EQ(answer.rank, 1);
  EXPECT_EQ(read_eager(ours.get(), 2, *t1), 5u);
  wait(*t1, send, Deadline::after(5s), "send");

  ASSERT_TRUE(send_reply(its_dial.get(), HelloKind::refuse, RefuseReason::duplicate, 0, 2));
  EXPECT_TRUE(closed_by_peer(its_dial.get(), *t1));
  std::uint32_t got = 0;
  send_eager(ours.get(), 3, 9);
  wait(*t1, t1->irecv(0, 3, &got, sizeof(got)), Deadline::after(5s), "recv");
  EXPECT_EQ(got, 9u);
}

// Rank 0 refuses rank 1's dial because it is dialing itself: rank 1 keeps
// its message, dials no more, and sends it on rank 0's connection.
TEST(TcpDialRace, HigherRankYieldsAndSendsOnTheLowerRanksConnection) {
  auto t1 = make(1);
  UniqueFd listener = net::listen_on("127.0.0.1", 0);
  t1->set_peer_endpoints({{"127.0.0.1", net::local_address(listener.get())}, {"127.0.0.1", t1->local_endpoint()}});
  std::uint32_t value = 6;
  auto send = t1->isend(0, 2, &value, sizeof(value));
  UniqueFd its_dial = accept_pumping(listener.get(), *t1);
  read_hello(its_dial.get(), *t1);
  ASSERT_TRUE(send_reply(its_dial.get(), HelloKind::refuse, RefuseReason::duplicate, 0, 2));
  EXPECT_TRUE(closed_by_peer(its_dial.get(), *t1));

  std::uint32_t more = 7;
  auto send2 = t1->isend(0, 2, &more, sizeof(more));  // must not dial again
  for (auto until = Deadline::after(50ms); !until.expired();) t1->progress();
  EXPECT_TRUE(send->pending());
  UniqueFd again(::accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
  EXPECT_FALSE(again) << "rank 1 dialed again";

  UniqueFd ours = dial_as(0, t1->local_endpoint());
  EXPECT_EQ(read_pumping<Hello>(ours.get(), *t1).kind, HelloKind::accept);
  EXPECT_EQ(read_eager(ours.get(), 2, *t1), 6u);
  EXPECT_EQ(read_eager(ours.get(), 2, *t1), 7u);
  wait(*t1, send, Deadline::after(5s), "send");
  wait(*t1, send2, Deadline::after(5s), "send 2");
}

// Any rank may dial now, so the acceptor checks every hello, whichever rank.
TEST(TcpDialRace, HandshakeFromAnyRankIsValidated) {
  auto t1 = make(1, 3);
  t1->set_peer_endpoints({{"127.0.0.1", "1"}, {"127.0.0.1", t1->local_endpoint()}, {"127.0.0.1", "1"}});
  struct Case {
    int rank;
    std::string job_token;
    int size;
    RefuseReason reason;
  };
  const Case cases[] = {{2, "other", 3, RefuseReason::bad_token},
                        {2, token, 4, RefuseReason::bad_size},
                        {1, token, 3, RefuseReason::bad_rank},
                        {3, token, 3, RefuseReason::bad_rank}};
  for (const Case& c : cases) {
    UniqueFd fd = dial_as(c.rank, t1->local_endpoint(), c.job_token, c.size);
    auto answer = read_pumping<Hello>(fd.get(), *t1);
    EXPECT_EQ(answer.kind, HelloKind::refuse) << "rank " << c.rank;
    EXPECT_EQ(answer.reason, c.reason) << "rank " << c.rank << ": " << to_string(answer.reason);
  }
  // A genuine higher rank is taken.
  UniqueFd fd = dial_as(2, t1->local_endpoint(), token, 3);
  EXPECT_EQ(read_pumping<Hello>(fd.get(), *t1).kind, HelloKind::accept);
}

}  // namespace
}  // namespace rcoll::transport::tcp
