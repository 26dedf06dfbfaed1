// The TCP transport's rule for a pair whose ranks dial each other at once
// (docs/PROTOCOLS.md, "Endpoints and connections"): the lower rank's
// connection wins, and the lower rank decides. One side of each pair here is
// a real transport; the other is a hand-driven stand-in speaking the wire
// format over raw sockets, so each step of the race happens in a chosen
// order. The real transport keeps progressing while the stand-in waits.
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "common/deadline.hpp"
#include "common/fd.hpp"
#include "common/socket_util.hpp"
#include "support/tcp_stand_in.hpp"
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

using namespace test::tcp_stand_in;

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
  Accepted dialed = accept_and_greet(listener.get(), token, *t0);
  EXPECT_EQ(dialed.hello.rank, 0);

  Dialed second = dial_as(1, 2, token, t0->local_endpoint(), *t0);
  auto refusal = read_reply(second, token, *t0);
  EXPECT_EQ(refusal.kind, HelloKind::refuse);
  EXPECT_EQ(refusal.reason, RefuseReason::duplicate);
  EXPECT_TRUE(closed_by_peer(second.fd.get(), *t0));

  answer(dialed, HelloKind::accept, RefuseReason::none, 1, 2, token);
  send_eager(dialed.fd.get(), 1, 77);
  wait(*t0, recv, Deadline::after(5s), "recv");
  EXPECT_EQ(got, 77u);
  std::uint32_t value = 78;
  auto send = t0->isend(1, 2, &value, sizeof(value));
  EXPECT_EQ(read_eager(dialed.fd.get(), 2, *t0), 78u);
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
  Accepted its_dial = accept_and_greet(listener.get(), token, *t1);
  EXPECT_EQ(its_dial.hello.rank, 1);

  Dialed ours = dial_as(0, 2, token, t1->local_endpoint(), *t1);
  auto accept = read_reply(ours, token, *t1);
  EXPECT_EQ(accept.kind, HelloKind::accept);
  EXPECT_EQ(accept.rank, 1);
  EXPECT_EQ(read_eager(ours.fd.get(), 2, *t1), 5u);
  wait(*t1, send, Deadline::after(5s), "send");

  answer(its_dial, HelloKind::refuse, RefuseReason::duplicate, 0, 2, token);
  EXPECT_TRUE(closed_by_peer(its_dial.fd.get(), *t1));
  std::uint32_t got = 0;
  send_eager(ours.fd.get(), 3, 9);
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
  Accepted its_dial = accept_and_greet(listener.get(), token, *t1);
  answer(its_dial, HelloKind::refuse, RefuseReason::duplicate, 0, 2, token);
  EXPECT_TRUE(closed_by_peer(its_dial.fd.get(), *t1));

  std::uint32_t more = 7;
  auto send2 = t1->isend(0, 2, &more, sizeof(more));  // must not dial again
  for (auto until = Deadline::after(50ms); !until.expired();) t1->progress();
  EXPECT_TRUE(send->pending());
  UniqueFd again(::accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
  EXPECT_FALSE(again) << "rank 1 dialed again";

  Dialed ours = dial_as(0, 2, token, t1->local_endpoint(), *t1);
  EXPECT_EQ(read_reply(ours, token, *t1).kind, HelloKind::accept);
  EXPECT_EQ(read_eager(ours.fd.get(), 2, *t1), 6u);
  EXPECT_EQ(read_eager(ours.fd.get(), 2, *t1), 7u);
  wait(*t1, send, Deadline::after(5s), "send");
  wait(*t1, send2, Deadline::after(5s), "send 2");
}

// Any rank may dial now, so the acceptor checks every proven hello, whichever
// rank, and answers it with its own proof.
TEST(TcpDialRace, HandshakeFromAnyRankIsValidated) {
  auto t1 = make(1, 3);
  t1->set_peer_endpoints({{"127.0.0.1", "1"}, {"127.0.0.1", t1->local_endpoint()}, {"127.0.0.1", "1"}});
  struct Case {
    int rank;
    int size;
    RefuseReason reason;
  };
  const Case cases[] = {{2, 4, RefuseReason::bad_size}, {1, 3, RefuseReason::bad_rank}, {3, 3, RefuseReason::bad_rank}};
  for (const Case& c : cases) {
    Dialed dialed = dial_as(c.rank, c.size, token, t1->local_endpoint(), *t1);
    auto reply = read_reply(dialed, token, *t1);
    EXPECT_EQ(reply.kind, HelloKind::refuse) << "rank " << c.rank;
    EXPECT_EQ(reply.reason, c.reason) << "rank " << c.rank << ": " << to_string(reply.reason);
  }
  // Another job's token gets no answer at all: only the close.
  Dialed stranger = dial_as(2, 3, "other", t1->local_endpoint(), *t1);
  EXPECT_TRUE(closed_by_peer(stranger.fd.get(), *t1));
  // A genuine higher rank is taken.
  Dialed genuine = dial_as(2, 3, token, t1->local_endpoint(), *t1);
  EXPECT_EQ(read_reply(genuine, token, *t1).kind, HelloKind::accept);
}

}  // namespace
}  // namespace rcoll::transport::tcp
