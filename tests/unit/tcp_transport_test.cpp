// TCP-only behaviour of the TCP transport: listening address and endpoint
// blobs, connection failures, and the handshake's refusal of strangers. The
// messaging contract itself is in transport_contract_test.cpp.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>

#include "common/deadline.hpp"
#include "common/fd.hpp"
#include "rcoll/errors.hpp"
#include "support/free_port.hpp"
#include "transport/tcp/tcp_transport.hpp"
#include "transport/tcp/wire.hpp"
#include "transport/wait.hpp"

namespace rcoll::transport {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<Transport> make(int rank, int size, std::string token = "t", std::string ifname = "127.0.0.1",
                                std::chrono::milliseconds connect_timeout = 5s, std::string job_route = "") {
  TransportConfig config;
  config.rank = rank;
  config.size = size;
  config.job_token = std::move(token);
  config.socket_ifname = std::move(ifname);
  config.connect_timeout = connect_timeout;
  config.job_route = std::move(job_route);
  return make_tcp_transport(config);
}

std::string message_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(TcpTransport, AdvertisesZeroCopyAndProtocolSizes) {
  auto t = make(0, 1);
  EXPECT_EQ(t->name(), "tcp");
  EXPECT_TRUE(t->capabilities().zero_copy_send);
  EXPECT_TRUE(t->capabilities().zero_copy_recv);
  // eager_limit: the credit window, above the always-eager size (tcp_credit_test).
  EXPECT_GE(t->capabilities().eager_limit, tcp::free_eager_limit);
  EXPECT_GT(t->capabilities().preferred_segment, tcp::free_eager_limit);
}

TEST(TcpTransport, UnknownInterfaceIsInvalidArgument) {
  EXPECT_THROW(make(0, 2, "t", "nosuchif0"), InvalidArgument);
  EXPECT_NE(message_of([] { make(0, 2, "t", "nosuchif0"); }).find("nosuchif0"), std::string::npos);
}

TEST(TcpTransport, EndpointNamesTheInterfaceAddressOrOnlyThePort) {
  EXPECT_EQ(make(0, 2, "t", "lo")->local_endpoint().rfind("127.0.0.1:", 0), 0u);
  std::string any = make(0, 2, "t", "", 5s, "0.0.0.0:29500")->local_endpoint();
  EXPECT_EQ(any.find_first_not_of("0123456789"), std::string::npos) << any;
}

// Without an interface, the listener binds the address of the route to the
// job's bootstrap service: loopback when the service is on loopback or there
// is none (ranks as threads), never every interface.
TEST(TcpTransport, ListensOnlyOnTheRouteToTheJob) {
  for (const std::string route : {"", "in-memory", "127.0.0.1:29500", "localhost:1"}) {
    std::string endpoint = make(0, 2, "t", "", 5s, route)->local_endpoint();
    EXPECT_EQ(endpoint.rfind("127.0.0.1:", 0), 0u) << "route '" << route << "': " << endpoint;
  }
}

TEST(TcpTransport, MalformedEndpointIsInvalidArgument) {
  auto t = make(0, 2);
  std::string what = message_of([&] { t->set_peer_endpoints({{"127.0.0.1", "1"}, {"127.0.0.1", "not-a-port"}}); });
  EXPECT_NE(what.find("rank 1"), std::string::npos) << what;
  EXPECT_THROW(t->set_peer_endpoints({{"127.0.0.1", "1"}}), InvalidArgument);
}

// A port-only blob makes the peer use the address the bootstrap saw.
TEST(TcpTransport, ConnectsThroughBootstrapAddressWhenBlobIsAPort) {
  auto t0 = make(0, 2, "t", "", 5s, "0.0.0.0:1");
  auto t1 = make(1, 2, "t", "", 5s, "0.0.0.0:1");
  std::vector<PeerEndpoint> endpoints = {{"127.0.0.1", t0->local_endpoint()}, {"127.0.0.1", t1->local_endpoint()}};
  t0->set_peer_endpoints(endpoints);
  t1->set_peer_endpoints(endpoints);
  std::uint64_t value = 42, got = 0;
  std::thread receiver([&] { wait(*t1, t1->irecv(0, 1, &got, sizeof(got)), Deadline::after(5s), "recv"); });
  wait(*t0, t0->isend(1, 1, &value, sizeof(value)), Deadline::after(5s), "send");
  receiver.join();
  EXPECT_EQ(got, 42u);
}

// Ranks listen before they join, so a refused connection means the peer is
// gone: the send fails at once, not after the connect timeout (10 s here).
TEST(TcpTransport, DeadPortFailsAtOnceNamingPeerAddressAndCause) {
  int port = test::free_tcp_port();
  auto t0 = make(0, 2, "t", "127.0.0.1", 10s);
  t0->set_peer_endpoints({{"127.0.0.1", t0->local_endpoint()}, {"127.0.0.1", "127.0.0.1:" + std::to_string(port)}});
  char byte = 1;
  auto start = Deadline::Clock::now();
  try {
    wait(*t0, t0->isend(1, 1, &byte, 1), Deadline::after(10s), "send to nobody");
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    std::string what = e.what();
    EXPECT_EQ(e.peer(), 1);
    EXPECT_NE(what.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << what;
    EXPECT_NE(what.find("refused"), std::string::npos) << what;
    EXPECT_NE(what.find("no longer listens"), std::string::npos) << what;
  }
  auto took = Deadline::Clock::now() - start;
  EXPECT_LT(took, 2s);
}

// A rank with another job's token gets no answer, only the close, and
// gives up at its connect deadline naming the peer (1 s here); the acceptor
// carries on and takes the genuine rank 0 afterwards.
TEST(TcpTransport, WrongJobTokenIsDroppedAndAcceptorCarriesOn) {
  auto stranger = make(0, 2, "other-job", "127.0.0.1", 1s);
  auto genuine = make(0, 2, "job");
  auto acceptor = make(1, 2, "job");
  std::vector<PeerEndpoint> endpoints = {{"127.0.0.1", genuine->local_endpoint()},
                                         {"127.0.0.1", acceptor->local_endpoint()}};
  stranger->set_peer_endpoints(endpoints);
  genuine->set_peer_endpoints(endpoints);
  acceptor->set_peer_endpoints(endpoints);
  std::uint32_t got = 0, value = 7;
  std::thread receiver([&] { wait(*acceptor, acceptor->irecv(0, 1, &got, sizeof(got)), Deadline::after(5s), "recv"); });
  std::string what = message_of([&] {
    wait(*stranger, stranger->isend(1, 1, &value, sizeof(value)), Deadline::after(5s), "stranger send");
  });
  EXPECT_NE(what.find("rank 1 (127.0.0.1:"), std::string::npos) << what;
  EXPECT_NE(what.find("closed while waiting"), std::string::npos) << what;
  EXPECT_NE(what.find("proof of the job token"), std::string::npos) << what;
  wait(*genuine, genuine->isend(1, 1, &value, sizeof(value)), Deadline::after(5s), "genuine send");
  receiver.join();
  EXPECT_EQ(got, 7u);
}

// A client that speaks garbage is dropped without disturbing the transport.
TEST(TcpTransport, StrayClientIsDropped) {
  auto t0 = make(0, 2);
  auto t1 = make(1, 2);
  std::vector<PeerEndpoint> endpoints = {{"127.0.0.1", t0->local_endpoint()}, {"127.0.0.1", t1->local_endpoint()}};
  t0->set_peer_endpoints(endpoints);
  t1->set_peer_endpoints(endpoints);
  UniqueFd stray(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(std::stoi(t1->local_endpoint().substr(10))));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(stray.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  const char garbage[] = "GET / HTTP/1.0\r\n\r\n______";
  ASSERT_GT(::send(stray.get(), garbage, sizeof(garbage), 0), 0);
  std::uint32_t got = 0, value = 9;
  std::thread receiver([&] { wait(*t1, t1->irecv(0, 1, &got, sizeof(got)), Deadline::after(5s), "recv"); });
  wait(*t0, t0->isend(1, 1, &value, sizeof(value)), Deadline::after(5s), "send");
  receiver.join();
  EXPECT_EQ(got, 9u);
  timeval two_seconds{2, 0};
  ::setsockopt(stray.get(), SOL_SOCKET, SO_RCVTIMEO, &two_seconds, sizeof(two_seconds));
  char answer[64];
  EXPECT_LE(::recv(stray.get(), answer, sizeof(answer), 0), static_cast<ssize_t>(sizeof(tcp::Challenge)))
      << "the stray got more than the challenge";
}

// A rendezvous send cancelled before its clear-to-send: the sender's buffer is
// not read again (the receive buffer gets nothing read after the cancel),
// the receive fails naming the withdrawal, and the connection carries on.
TEST(TcpTransport, CancelledRendezvousSendIsWithdrawn) {
  auto t0 = make(0, 2);
  auto t1 = make(1, 2);
  std::vector<PeerEndpoint> endpoints = {{"127.0.0.1", t0->local_endpoint()}, {"127.0.0.1", t1->local_endpoint()}};
  t0->set_peer_endpoints(endpoints);
  t1->set_peer_endpoints(endpoints);
  const std::size_t size = 2 * t0->capabilities().eager_limit + 8;  // beyond any credit: rendezvous
  std::vector<std::uint8_t> out(size, 0xAB), in(size, 0x11);
  std::atomic<int> stage{0};
  std::uint8_t ping = 1;
  std::thread receiver([&] {
    std::uint8_t got_ping = 0;
    wait(*t1, t1->irecv(0, 3, &got_ping, 1), Deadline::after(5s), "warm-up recv");
    while (stage.load() == 0) t1->progress();  // see the RTS, answer nothing yet
    std::string what = message_of([&] { wait(*t1, t1->irecv(0, 1, in.data(), size), Deadline::after(5s), "recv"); });
    EXPECT_NE(what.find("withdrew"), std::string::npos) << what;
    std::uint32_t got = 0;
    wait(*t1, t1->irecv(0, 2, &got, sizeof(got)), Deadline::after(5s), "recv after");
    EXPECT_EQ(got, 5u);
    stage = 2;
  });
  // With the connection up, the RTS is written inside isend, so the cancel
  // finds it on the wire (no time allowance needed); the clear-to-send can
  // only come after stage 1, when the receive is posted.
  wait(*t0, t0->isend(1, 3, &ping, 1), Deadline::after(5s), "warm-up send");
  auto send = t0->isend(1, 1, out.data(), size);
  auto deadline = Deadline::after(5s);
  t0->cancel(*send);
  EXPECT_EQ(send->state(), Request::State::cancelled);
  std::fill(out.begin(), out.end(), 0);  // must never reach the receiver
  stage = 1;
  std::uint32_t value = 5;
  wait(*t0, t0->isend(1, 2, &value, sizeof(value)), Deadline::after(5s), "send after");
  while (stage.load() != 2 && !deadline.expired()) t0->progress();
  receiver.join();
  EXPECT_EQ(std::count(in.begin(), in.end(), 0), 0) << "bytes read from the buffer after the cancel arrived";
}

}  // namespace
}  // namespace rcoll::transport
