// Mutual authentication on the TCP transport's handshake (issue 19, item
// 2): the job token never travels, a dialer believes no answer that does
// not prove the token (neither an accept nor a refusal), a stranger learns
// neither the acceptor's rank nor the world size, and a dialer whose
// connection is closed before the answer (evicted by a flood) dials again.
// The other side of each connection is a plain socket driven by the test.
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "common/deadline.hpp"
#include "common/fd.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"
#include "support/tcp_stand_in.hpp"
#include "transport/tcp/handshake.hpp"
#include "transport/tcp/tcp_transport.hpp"
#include "transport/tcp/wire.hpp"
#include "transport/wait.hpp"

namespace rcoll::transport::tcp {
namespace {

using namespace std::chrono_literals;
using namespace test::tcp_stand_in;

const std::string token = "job-secret-0123456789abcdef";

std::unique_ptr<Transport> make(int rank) {
  TransportConfig config;
  config.rank = rank;
  config.size = 2;
  config.job_token = token;
  config.socket_ifname = "127.0.0.1";
  config.connect_timeout = 5s;
  return make_tcp_transport(config);
}

// Everything that arrives on `fd` within `time`, progressing `t`.
std::string record(int fd, Transport& t, std::chrono::milliseconds time) {
  std::string bytes;
  for (auto until = Deadline::after(time); !until.expired();) {
    char buf[256];
    ssize_t n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) bytes.append(buf, static_cast<std::size_t>(n));
    if (n == 0) break;
    t.progress();
  }
  return bytes;
}

// The IoError a request ends with (empty text if it ends otherwise).
std::string failure_of(Transport& t, const RequestPtr& request, int peer) {
  try {
    wait(t, request, Deadline::after(5s), "send");
  } catch (const IoError& e) {
    EXPECT_EQ(e.peer(), peer);
    return e.what();
  }
  return "";
}

// The real rank `self` sends to the fake peer `peer`, which listens at
// `listener` in the peer's place.
struct Dialing {
  std::unique_ptr<Transport> t;
  UniqueFd listener = net::listen_on("127.0.0.1", 0);
  std::string where = net::local_address(listener.get());
  std::uint32_t value = 7;
  RequestPtr send;

  Dialing(int self, int peer) : t(make(self)) {
    std::vector<PeerEndpoint> endpoints(2);
    endpoints[static_cast<std::size_t>(self)] = {"127.0.0.1", t->local_endpoint()};
    endpoints[static_cast<std::size_t>(peer)] = {"127.0.0.1", where};
    t->set_peer_endpoints(endpoints);
    send = t->isend(peer, 1, &value, sizeof(value));
  }
};

// A squatter in rank 1's place: the dialer sends nothing until challenged,
// then a Hello without the token, and refuses the squatter's forged accept
// naming rank 1, its address and why.
TEST(TcpAuth, TokenNeverTravelsAndAnUnprovenAcceptIsRefused) {
  Dialing dialing(0, 1);
  UniqueFd fd = accept_pumping(dialing.listener.get(), *dialing.t);
  EXPECT_EQ(record(fd.get(), *dialing.t, 100ms), "") << "the dialer spoke before the challenge";
  Challenge challenge;
  challenge.nonce = auth::fresh_nonce();
  ASSERT_TRUE(send_whole(fd.get(), &challenge, sizeof(challenge)));
  std::string sent = record(fd.get(), *dialing.t, 200ms);
  EXPECT_EQ(sent.size(), sizeof(Hello));
  EXPECT_EQ(sent.find(token), std::string::npos) << "the job token travelled in clear";
  EXPECT_EQ(sent.find(token.substr(0, 8)), std::string::npos) << "part of the job token travelled in clear";

  Reply forged;  // what a squatter can say: the right fields, no proof
  forged.rank = 1;
  forged.size = 2;
  ASSERT_TRUE(send_whole(fd.get(), &forged, sizeof(forged)));
  std::string what = failure_of(*dialing.t, dialing.send, 1);
  EXPECT_NE(what.find("rank 1 (" + dialing.where + ")"), std::string::npos) << what;
  EXPECT_NE(what.find("does not prove"), std::string::npos) << what;
}

// The dial race yields only to a proven refusal: a forged `duplicate` from
// a squatter in rank 0's place fails the send instead of parking it.
TEST(TcpAuth, UnprovenDuplicateRefusalIsNotBelieved) {
  Dialing dialing(1, 0);
  UniqueFd fd = accept_pumping(dialing.listener.get(), *dialing.t);
  Challenge challenge;
  challenge.nonce = auth::fresh_nonce();
  ASSERT_TRUE(send_whole(fd.get(), &challenge, sizeof(challenge)));
  read_pumping<Hello>(fd.get(), *dialing.t);
  Reply forged;
  forged.kind = HelloKind::refuse;
  forged.reason = RefuseReason::duplicate;
  forged.rank = 0;
  forged.size = 2;
  ASSERT_TRUE(send_whole(fd.get(), &forged, sizeof(forged)));
  std::string what = failure_of(*dialing.t, dialing.send, 0);
  EXPECT_NE(what.find("does not prove"), std::string::npos) << what;
}

// An acceptor evicting the connection (a flood's doing) is not a failure:
// the dialer dials again, and the message goes on the second connection.
TEST(TcpAuth, DialerDialsAgainWhenClosedBeforeTheAnswer) {
  Dialing dialing(0, 1);
  accept_pumping(dialing.listener.get(), *dialing.t).reset();  // evicted before the challenge
  Accepted second = accept_and_greet(dialing.listener.get(), token, *dialing.t);
  second.fd.reset();  // evicted after the Hello
  Accepted third = accept_and_greet(dialing.listener.get(), token, *dialing.t);
  answer(third, HelloKind::accept, RefuseReason::none, 1, 2, token);
  auto header = read_pumping<FrameHeader>(third.fd.get(), *dialing.t);
  EXPECT_EQ(header.type, FrameType::eager);
  EXPECT_EQ(read_pumping<std::uint32_t>(third.fd.get(), *dialing.t), 7u);
  wait(*dialing.t, dialing.send, Deadline::after(5s), "send");
}

// A stranger's Hello without the proof gets no answer: the acceptor's
// challenge is all it ever receives (no rank, no world size), then the close.
TEST(TcpAuth, StrangerLearnsNeitherRankNorWorldSize) {
  auto t = make(1);
  t->set_peer_endpoints({{"127.0.0.1", "1"}, {"127.0.0.1", t->local_endpoint()}});
  Dialed stranger = dial_as(0, 2, "a-guessed-token", t->local_endpoint(), *t);
  EXPECT_EQ(record(stranger.fd.get(), *t, 300ms), "") << "the acceptor answered an unproven hello";
  EXPECT_TRUE(closed_by_peer(stranger.fd.get(), *t));
}

}  // namespace
}  // namespace rcoll::transport::tcp
