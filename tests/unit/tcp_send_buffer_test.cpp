// The TCP peer sockets' send buffer (transport/tcp/send_buffer.hpp) and the
// byte counts its environment variable takes.
#include <gtest/gtest.h>

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <fstream>
#include <thread>
#include <vector>

#include "common/byte_count.hpp"
#include "common/fd.hpp"
#include "rcoll/errors.hpp"
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


TEST(ByteCount, NumbersWithBinarySuffixes) {
  EXPECT_EQ(parse_byte_count("0"), 0u);
  EXPECT_EQ(parse_byte_count("8192"), 8192u);
  EXPECT_EQ(parse_byte_count("64K"), 64 * KiB);
  EXPECT_EQ(parse_byte_count("1m"), MiB);
  EXPECT_EQ(parse_byte_count("2G"), std::size_t{2} << 30);
  for (const char* bad : {"", "K", "-1", "1.5M", "12x", "1MB", " 1", "99999999999999999999G"})
    EXPECT_FALSE(parse_byte_count(bad).has_value()) << "'" << bad << "'";
}

TEST(SendBuffer, HalfAMebibyteUnlessTheKernelCapsItOrTheUserSaysOtherwise) {
  EXPECT_EQ(SendBuffer::choose(std::nullopt, 4 * MiB).bytes, 512 * KiB);
  EXPECT_EQ(SendBuffer::choose(std::nullopt, 256 * KiB).bytes, 512 * KiB);  // the kernel doubles 256 KiB
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

TEST(SendBuffer, EagerRunsGetTheLargerBufferTheKernelAllows) {
  EXPECT_EQ(SendBuffer::choose(std::nullopt, 4 * MiB).eager_bytes, 8 * MiB);
  EXPECT_EQ(SendBuffer::choose(std::nullopt, MiB).eager_bytes, 2 * MiB);  // capped at twice wmem_max
  EXPECT_EQ(SendBuffer::choose(16 * MiB, 8 * MiB).eager_bytes, 16 * MiB);  // never below `bytes`
  EXPECT_EQ(SendBuffer::choose(0, 4 * MiB).eager_bytes, 0u);
  EXPECT_EQ(SendBuffer::choose(std::nullopt, 212992).eager_bytes, 0u);
}

FrameHeader frame(FrameType type, std::size_t length) {
  FrameHeader header;
  header.type = type;
  header.length = length;
  return header;
}

TEST(SendBuffer, SizedPerFrameLargePayloadsOnly) {
  const SendBuffer buffer = SendBuffer::choose(std::nullopt, 4 * MiB);
  EXPECT_EQ(buffer.size_for(frame(FrameType::data, MiB)), buffer.bytes);
  EXPECT_EQ(buffer.size_for(frame(FrameType::eager, 256 * KiB)), buffer.eager_bytes);
  // Frames up to the free eager limit, and frames without a payload, leave it.
  EXPECT_EQ(buffer.size_for(frame(FrameType::eager, free_eager_limit)), 0u);
  EXPECT_EQ(buffer.size_for(frame(FrameType::data, free_eager_limit)), 0u);
  EXPECT_EQ(buffer.size_for(frame(FrameType::rts, MiB)), 0u);  // `length` is the message's, not a payload
  EXPECT_EQ(buffer.size_for(frame(FrameType::cts, MiB)), 0u);
  EXPECT_EQ(buffer.size_for(frame(FrameType::credit, MiB)), 0u);
  const SendBuffer autotuned = SendBuffer::choose(0, 4 * MiB);
  EXPECT_EQ(autotuned.size_for(frame(FrameType::data, MiB)), 0u);
  EXPECT_EQ(autotuned.size_for(frame(FrameType::eager, 256 * KiB)), 0u);
}

// The configured request (RCOLL_TCP_SNDBUF, read by comm/environment) with
// this host's wmem_max.
TEST(SendBuffer, ForThisHostIsTheChoiceWithTheHostsLimit) {
  EXPECT_EQ(SendBuffer::for_this_host(0).bytes, 0u);
  EXPECT_EQ(SendBuffer::for_this_host(std::nullopt).bytes, SendBuffer::choose(std::nullopt, host_wmem_max()).bytes);
  EXPECT_EQ(SendBuffer::for_this_host(std::size_t{1} << 20).reason,
            SendBuffer::choose(std::size_t{1} << 20, host_wmem_max()).reason);
}

TEST(SendBuffer, ApplySetsWhatTheKernelReports) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_GE(fd.get(), 0);
  const int before = send_buffer_of(fd.get());
  const SendBuffer buffer = SendBuffer::choose(std::nullopt, host_wmem_max());
  EXPECT_EQ(SendBuffer::apply(fd.get(), buffer.bytes), 0);
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

// The send buffers of the sockets, sorted.
std::vector<std::size_t> send_buffers(const std::vector<int>& sockets) {
  std::vector<std::size_t> sizes;
  for (int fd : sockets) sizes.push_back(static_cast<std::size_t>(send_buffer_of(fd)));
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

// Rank 0 sends `bytes` bytes to rank 1.
void send_message(test::TransportWorld& world, std::size_t bytes, Tag tag) {
  const auto deadline = Deadline::after(10s);
  std::thread receiver([&] { EXPECT_EQ(test::recv_bytes(world.at(1), 0, tag, bytes, deadline).size(), bytes); });
  test::send_bytes(world.at(0), 1, tag, test::Bytes(bytes, std::uint8_t{7}), deadline);
  receiver.join();
}

// End to end: the connections a TCP transport makes (dialled and accepted)
// carry the buffer, and the sender's follows the frames it writes.
TEST(SendBuffer, TheTransportsConnectionsCarryItPerFrame) {
  const SendBuffer expected = SendBuffer::choose(std::nullopt, host_wmem_max());
  test::TransportWorld world = test::make_transport_world("tcp", 2);
  send_message(world, 3, 5);
  const std::vector<int> sockets = connected_tcp_sockets();
  ASSERT_EQ(sockets.size(), 2u) << "both ends of the rank 0 - rank 1 connection";
  if (expected.bytes == 0) GTEST_SKIP() << "this host keeps autotuning: " << expected.reason;
  using Sizes = std::vector<std::size_t>;
  EXPECT_EQ(send_buffers(sockets), (Sizes{expected.bytes, expected.bytes})) << "after a small message";
  // A credited EAGER message (above the free limit, within a 2-rank
  // world's credited limit): rank 0's socket takes the eager size; rank 1
  // only sends small CREDIT frames.
  ASSERT_GT(credited_eager_limit(2), free_eager_limit + 1);
  send_message(world, credited_eager_limit(2), 6);
  EXPECT_EQ(send_buffers(sockets), (Sizes{expected.bytes, expected.eager_bytes})) << "after a credited eager one";
  // A rendezvous message: rank 0 writes a large DATA frame, rank 1 a CTS.
  send_message(world, 4 * credited_eager_limit(2), 7);
  EXPECT_EQ(send_buffers(sockets), (Sizes{expected.bytes, expected.bytes})) << "after a rendezvous one";
}

}  // namespace
}  // namespace rcoll::transport::tcp
