// The TCP peer sockets' send buffer (transport/tcp/send_buffer.hpp) and the
// byte counts its environment variable takes.
#include <gtest/gtest.h>

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <fstream>
#include <thread>
#include <vector>

#include "common/byte_count.hpp"
#include "common/fd.hpp"
#include "rcoll/errors.hpp"
#include "support/scoped_env.hpp"
#include "support/transport_fixture.hpp"
#include "transport/tcp/send_buffer.hpp"

namespace rcoll::transport::tcp {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t KiB = 1024, MiB = 1024 * KiB;

std::optional<std::size_t> host_wmem_max() {
  std::ifstream in("/proc/sys/net/core/wmem_max");
  std::size_t value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

int send_buffer_of(int fd) {
  int value = 0;
  socklen_t length = sizeof value;
  EXPECT_EQ(::getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, &length), 0);
  return value;
}

using test::ScopedEnv;

TEST(ByteCount, NumbersWithBinarySuffixes) {
  EXPECT_EQ(parse_byte_count("0"), 0u);
  EXPECT_EQ(parse_byte_count("8192"), 8192u);
  EXPECT_EQ(parse_byte_count("64K"), 64 * KiB);
  EXPECT_EQ(parse_byte_count("1m"), MiB);
  EXPECT_EQ(parse_byte_count("2G"), std::size_t{2} << 30);
  for (const char* bad : {"", "K", "-1", "1.5M", "12x", "1MB", " 1", "99999999999999999999G"})
    EXPECT_FALSE(parse_byte_count(bad).has_value()) << "'" << bad << "'";
}

TEST(SendBuffer, OneMebibyteUnlessTheKernelCapsItOrTheUserSaysOtherwise) {
  EXPECT_EQ(SendBuffer::choose(std::nullopt, 4 * MiB).bytes, MiB);
  EXPECT_EQ(SendBuffer::choose(std::nullopt, 512 * KiB).bytes, MiB);  // the kernel doubles 512 KiB
  EXPECT_EQ(SendBuffer::choose(2 * MiB, 4 * MiB).bytes, 2 * MiB);
  // A stock Debian 12 kernel: SO_SNDBUF capped at 208 KiB, so autotuning.
  const SendBuffer capped = SendBuffer::choose(std::nullopt, 212992);
  EXPECT_EQ(capped.bytes, 0u);
  EXPECT_NE(capped.reason.find("net.core.wmem_max 212992"), std::string::npos) << capped.reason;
  const SendBuffer off = SendBuffer::choose(0, 4 * MiB);
  EXPECT_EQ(off.bytes, 0u);
  EXPECT_NE(off.reason.find("RCOLL_TCP_SNDBUF=0"), std::string::npos) << off.reason;
  EXPECT_EQ(SendBuffer::choose(std::nullopt, std::nullopt).bytes, 0u);
}

TEST(SendBuffer, TheEnvironmentChoosesAndABadValueIsRefusedByName) {
  {
    ScopedEnv env("RCOLL_TCP_SNDBUF", "0");
    EXPECT_EQ(SendBuffer::from_environment().bytes, 0u);
  }
  {
    ScopedEnv env("RCOLL_TCP_SNDBUF", "lots");
    try {
      SendBuffer::from_environment();
      ADD_FAILURE() << "RCOLL_TCP_SNDBUF=lots was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("RCOLL_TCP_SNDBUF='lots'"), std::string::npos) << e.what();
    }
  }
  ScopedEnv env("RCOLL_TCP_SNDBUF", nullptr);
  EXPECT_EQ(SendBuffer::from_environment().bytes, SendBuffer::choose(std::nullopt, host_wmem_max()).bytes);
}

TEST(SendBuffer, ApplySetsWhatTheKernelReports) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_GE(fd.get(), 0);
  const int before = send_buffer_of(fd.get());
  const SendBuffer buffer = SendBuffer::choose(std::nullopt, host_wmem_max());
  EXPECT_EQ(buffer.apply(fd.get()), 0);
  if (buffer.bytes == 0) {
    EXPECT_EQ(send_buffer_of(fd.get()), before) << buffer.reason;
  } else {
    EXPECT_EQ(static_cast<std::size_t>(send_buffer_of(fd.get())), buffer.bytes);
  }
}

// Every connected TCP socket of this process with an IPv4 peer.
std::vector<int> connected_tcp_sockets() {
  std::vector<int> fds;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  while (const dirent* entry = ::readdir(dir)) {
    const int fd = std::atoi(entry->d_name);
    int type = 0;
    socklen_t length = sizeof type;
    if (fd <= 2 || ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) continue;
    sockaddr_in peer{};
    socklen_t peer_length = sizeof peer;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_length) == 0 && peer.sin_family == AF_INET)
      fds.push_back(fd);
  }
  ::closedir(dir);
  return fds;
}

// End to end: the connections a TCP transport makes (dialled and accepted)
// carry the buffer.
TEST(SendBuffer, TheTransportsConnectionsCarryIt) {
  ScopedEnv env("RCOLL_TCP_SNDBUF", nullptr);
  const SendBuffer expected = SendBuffer::choose(std::nullopt, host_wmem_max());
  test::TransportWorld world = test::make_transport_world("tcp", 2);
  const auto deadline = Deadline::after(10s);
  std::thread receiver([&] { EXPECT_EQ(test::recv_bytes(world.at(1), 0, 5, 16, deadline).size(), 3u); });
  test::send_bytes(world.at(0), 1, 5, {1, 2, 3}, deadline);
  receiver.join();
  const std::vector<int> sockets = connected_tcp_sockets();
  ASSERT_GE(sockets.size(), 2u) << "both ends of the rank 0 - rank 1 connection";
  if (expected.bytes == 0) GTEST_SKIP() << "this host keeps autotuning: " << expected.reason;
  for (int fd : sockets) EXPECT_EQ(static_cast<std::size_t>(send_buffer_of(fd)), expected.bytes) << "fd " << fd;
}

}  // namespace
}  // namespace rcoll::transport::tcp
