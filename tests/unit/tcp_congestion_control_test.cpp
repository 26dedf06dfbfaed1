// The congestion control of TCP connections that stay on this host
// (transport/tcp/congestion_control.hpp).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstring>
#include <string>

#include "common/fd.hpp"
#include "support/transport_fixture.hpp"
#include "transport/tcp/congestion_control.hpp"

namespace rcoll::transport::tcp {
namespace {

sockaddr_in address(const char* ip) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

// A connected loopback pair: the accepted end and the dialled one.
struct LoopbackPair {
  UniqueFd listener{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  UniqueFd dialled{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  UniqueFd accepted;
  LoopbackPair() {
    sockaddr_in a = address("127.0.0.1");
    socklen_t length = sizeof a;
    EXPECT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(listener.get(), 1), 0);
    EXPECT_EQ(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&a), &length), 0);
    EXPECT_EQ(::connect(dialled.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    accepted = UniqueFd(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    EXPECT_GE(accepted.get(), 0);
  }
};

bool set(int fd, const char* algorithm) {
  return ::setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, algorithm, static_cast<socklen_t>(std::strlen(algorithm))) == 0;
}

TEST(CongestionControl, OnlyConnectionsBetweenOneAddressStayOnTheHost) {
  EXPECT_TRUE(stays_on_host(address("127.0.0.1"), address("127.0.0.1")));
  EXPECT_TRUE(stays_on_host(address("10.1.2.3"), address("10.1.2.3")));
  EXPECT_FALSE(stays_on_host(address("127.0.0.1"), address("127.0.0.2")));
  EXPECT_FALSE(stays_on_host(address("10.1.2.3"), address("10.1.2.4")));
}

TEST(CongestionControl, BbrPacesWindowBasedAlgorithmsDoNot) {
  EXPECT_TRUE(paces("bbr"));
  EXPECT_TRUE(paces("bbr2"));
  for (const char* algorithm : {"cubic", "reno", "dctcp", ""}) EXPECT_FALSE(paces(algorithm)) << algorithm;
}

// The case the rule is for: a loopback connection the system gave BBR.
TEST(CongestionControl, ALoopbackConnectionOnBbrTakesAWindowBasedAlgorithm) {
  LoopbackPair pair;
  if (!set(pair.dialled.get(), "bbr"))
    GTEST_SKIP() << "this kernel has no bbr to start from: " << std::strerror(errno);
  ASSERT_EQ(congestion_control_of(pair.dialled.get()), "bbr");
  const std::string what = choose_congestion_control(pair.dialled.get());
  const std::string now = congestion_control_of(pair.dialled.get());
  EXPECT_TRUE(now == "cubic" || now == "reno") << now << ": " << what;
  EXPECT_NE(what.find("instead of bbr"), std::string::npos) << what;
}

// Anything that does not pace is left as it is.
TEST(CongestionControl, AWindowBasedAlgorithmIsKept) {
  LoopbackPair pair;
  ASSERT_TRUE(set(pair.accepted.get(), "reno"));
  EXPECT_EQ(choose_congestion_control(pair.accepted.get()), "kept reno");
  EXPECT_EQ(congestion_control_of(pair.accepted.get()), "reno");
}

// End to end: neither end of a TCP transport's loopback connection paces.
TEST(CongestionControl, TheTransportsLoopbackConnectionsDoNotPace) {
  test::TransportWorld world = test::make_transport_world("tcp", 2);
  const auto deadline = Deadline::after(std::chrono::seconds(10));
  std::thread receiver([&] { EXPECT_EQ(test::recv_bytes(world.at(1), 0, 9, 3, deadline).size(), 3u); });
  test::send_bytes(world.at(0), 1, 9, test::Bytes(3, std::uint8_t{1}), deadline);
  receiver.join();
  int checked = 0;
  for (int fd = 3; fd < 1024; ++fd) {
    sockaddr_in peer{};
    socklen_t length = sizeof peer;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0 || peer.sin_family != AF_INET) continue;
    EXPECT_FALSE(paces(congestion_control_of(fd))) << "fd " << fd << ": " << congestion_control_of(fd);
    ++checked;
  }
  EXPECT_EQ(checked, 2) << "both ends of the rank 0 - rank 1 connection";
}

}  // namespace
}  // namespace rcoll::transport::tcp
