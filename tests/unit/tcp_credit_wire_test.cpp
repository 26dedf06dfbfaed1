// The credited eager protocol seen from the wire: a scripted rank 0 speaks
// the TCP frames (transport/tcp/wire.hpp) to a real rank 1 transport and
// checks what comes back: CREDIT frames for delivered and dropped payloads,
// batching, the window enforced against a peer that ignores it, a receive
// cancelled in the middle of a credited payload, and a peer that dies there.
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common/deadline.hpp"
#include "common/fd.hpp"
#include "rcoll/errors.hpp"
#include "support/tcp_stand_in.hpp"
#include "transport/tcp/tcp_transport.hpp"
#include "transport/tcp/wire.hpp"
#include "transport/wait.hpp"

namespace rcoll::transport {
namespace {

using namespace std::chrono_literals;
using Bytes = std::vector<std::uint8_t>;
const std::string token = "wire-test";

Bytes pattern(std::size_t size, std::uint8_t seed) {
  Bytes bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>(seed + i * 7 + (i >> 11));
  return bytes;
}

// Rank 1 of a job of two, and a socket that plays rank 0. Every wait drives
// the transport, which only moves inside its calls.
class ScriptedPeer {
 public:
  ScriptedPeer() {
    TransportConfig config;
    config.rank = 1;
    config.size = 2;
    config.job_token = token;
    config.socket_ifname = "127.0.0.1";
    t = make_tcp_transport(config);
    // Rank 1 dials rank 0 only to send, which these tests never do.
    t->set_peer_endpoints({{"127.0.0.1", "127.0.0.1:1"}, {"127.0.0.1", t->local_endpoint()}});
    window = tcp::credit_window(2);
    connect_and_greet();
  }

  void send_frame(tcp::FrameType type, Tag tag, std::size_t length, const Bytes& payload = {}) {
    send_header(type, tag, length);
    write_all(payload.data(), payload.size());
  }

  // A frame's header alone: its payload is the caller's to write.
  void send_header(tcp::FrameType type, Tag tag, std::size_t length) {
    tcp::FrameHeader header;
    header.type = type;
    header.tag = tag;
    header.length = length;
    write_all(&header, sizeof(header));
  }

  // Writes without blocking the transport: it must read for big writes to finish.
  void write_all(const void* data, std::size_t bytes) {
    auto* p = static_cast<const std::uint8_t*>(data);
    Deadline limit = Deadline::after(10s);
    while (bytes > 0) {
      ssize_t n = ::send(fd.get(), p, bytes, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) {
        p += n;
        bytes -= static_cast<std::size_t>(n);
      } else {
        ASSERT_TRUE(n < 0 && (errno == EAGAIN || errno == EINTR)) << "send: " << std::strerror(errno);
        ASSERT_FALSE(limit.expired()) << "the transport stopped reading";
        t->progress();
      }
    }
  }

  // The next frame the transport sends (headers only: it sends no payloads here).
  tcp::FrameHeader read_frame() {
    tcp::FrameHeader header;
    read_exact(&header, sizeof(header));
    return header;
  }

  // Drives the transport for `time`, e.g. to let it read what was written.
  void settle(std::chrono::milliseconds time = 20ms) {
    Deadline until = Deadline::after(time);
    while (!until.expired()) {
      t->progress();
      t->wait_for_activity(100us);
    }
  }

  std::unique_ptr<Transport> t;
  std::size_t window = 0;
  UniqueFd fd;

 private:
  void connect_and_greet() {
    auto dialed = test::tcp_stand_in::dial_as(0, 2, token, t->local_endpoint(), *t);
    ASSERT_EQ(test::tcp_stand_in::read_reply(dialed, token, *t).kind, tcp::HelloKind::accept);
    fd = std::move(dialed.fd);
  }

  void read_exact(void* out, std::size_t bytes) {
    auto* p = static_cast<std::uint8_t*>(out);
    Deadline limit = Deadline::after(10s);
    while (bytes > 0) {
      ssize_t n = ::recv(fd.get(), p, bytes, MSG_DONTWAIT);
      if (n > 0) {
        p += n;
        bytes -= static_cast<std::size_t>(n);
        continue;
      }
      ASSERT_NE(n, 0) << "the transport closed the connection";
      ASSERT_TRUE(errno == EAGAIN || errno == EINTR) << "recv: " << std::strerror(errno);
      ASSERT_FALSE(limit.expired()) << "no frame came";
      t->progress();
      t->wait_for_activity(100us);
    }
  }
};

void expect_credit(ScriptedPeer& peer, std::size_t length) {
  tcp::FrameHeader header = peer.read_frame();
  EXPECT_EQ(header.type, tcp::FrameType::credit) << tcp::to_string(header.type);
  EXPECT_EQ(header.length, length);
}

std::string failure_of(Transport& t, const RequestPtr& request) {
  try {
    wait(t, request, Deadline::after(5s), "recv");
  } catch (const IoError& e) {
    EXPECT_EQ(e.peer(), 0);
    return e.what();
  }
  return "(no error)";
}

TEST(TcpCreditWire, CreditComesBackForDeliveredAndForTruncatedPayloads) {
  ScriptedPeer peer;
  const std::size_t q = peer.window / 4;
  Bytes in(q);
  auto posted = peer.t->irecv(0, 1, in.data(), in.size());
  peer.send_frame(tcp::FrameType::eager, 1, q, pattern(q, 1));
  wait(*peer.t, posted, Deadline::after(5s), "posted recv");
  EXPECT_EQ(in, pattern(q, 1));
  expect_credit(peer, q);
  peer.send_frame(tcp::FrameType::eager, 2, q, pattern(q, 2));  // unexpected
  peer.settle();
  Bytes small(10);
  std::string what = failure_of(*peer.t, peer.t->irecv(0, 2, small.data(), small.size()));
  EXPECT_NE(what.find("exceeds"), std::string::npos) << what;
  expect_credit(peer, q);
}

// Credit for small credited messages is handed back in one frame once one
// largest credited message's worth (at most a quarter window) is owed, not
// one frame per message.
TEST(TcpCreditWire, SmallReturnsAreBatchedIntoOneFrame) {
  ScriptedPeer peer;
  const std::size_t size = tcp::free_eager_limit + 1000;
  const std::size_t batch = std::min(peer.window / 4, tcp::credited_eager_limit(2));
  const std::size_t count = (batch + size - 1) / size;
  ASSERT_GT(count, 2u);
  Bytes in(size);
  for (std::size_t i = 0; i < count; ++i) {
    auto request = peer.t->irecv(0, 1, in.data(), in.size());
    peer.send_frame(tcp::FrameType::eager, 1, size, pattern(size, static_cast<std::uint8_t>(i)));
    wait(*peer.t, request, Deadline::after(5s), "recv");
    ASSERT_EQ(in, pattern(size, static_cast<std::uint8_t>(i)));
  }
  expect_credit(peer, count * size);
}

TEST(TcpCreditWire, EagerFramesBeyondTheWindowFailThePeer) {
  ScriptedPeer peer;
  const std::size_t half = peer.window / 2 + 1;
  Bytes in(16);
  auto pending = peer.t->irecv(0, 5, in.data(), in.size());
  peer.send_frame(tcp::FrameType::eager, 1, half, pattern(half, 1));  // parked as unexpected
  tcp::FrameHeader beyond;  // its payload is never read: the peer fails on the header
  beyond.type = tcp::FrameType::eager;
  beyond.tag = 1;
  beyond.length = half;
  peer.write_all(&beyond, sizeof(beyond));
  std::string what = failure_of(*peer.t, pending);
  EXPECT_NE(what.find("credit window"), std::string::npos) << what;
  auto later = peer.t->irecv(0, 6, in.data(), in.size());
  EXPECT_EQ(later->state(), Request::State::failed) << "a failed peer stays failed";
}

TEST(TcpCreditWire, CreditBeyondTheWindowFailsThePeer) {
  ScriptedPeer peer;
  Bytes in(16);
  auto pending = peer.t->irecv(0, 5, in.data(), in.size());
  peer.send_frame(tcp::FrameType::credit, 0, 1);  // nothing was spent
  std::string what = failure_of(*peer.t, pending);
  EXPECT_NE(what.find("CREDIT"), std::string::npos) << what;
}

// A receive cancelled while its credited payload is arriving: the rest is
// read into nowhere, the buffer is not written again, the credit comes back
// and the stream carries on.
TEST(TcpCreditWire, ReceiveCancelledMidPayloadIsLeftAloneAndReturnsItsCredit) {
  ScriptedPeer peer;
  const std::size_t q = peer.window / 4;
  const Bytes message = pattern(q, 3);
  Bytes in(q);
  auto request = peer.t->irecv(0, 1, in.data(), in.size());
  peer.send_header(tcp::FrameType::eager, 1, q);
  peer.write_all(message.data(), q / 2);
  peer.settle();
  EXPECT_TRUE(std::equal(in.begin(), in.begin() + 1000, message.begin())) << "the payload was not arriving";
  peer.t->cancel(*request);
  EXPECT_EQ(request->state(), Request::State::cancelled);
  std::fill(in.begin(), in.end(), 0xEE);
  peer.write_all(message.data() + q / 2, q - q / 2);
  expect_credit(peer, q);
  EXPECT_EQ(std::count(in.begin(), in.end(), 0xEE), static_cast<std::ptrdiff_t>(q)) << "written after cancel";
  Bytes next(10);
  auto after = peer.t->irecv(0, 1, next.data(), next.size());
  peer.send_frame(tcp::FrameType::eager, 1, 10, pattern(10, 4));
  wait(*peer.t, after, Deadline::after(5s), "recv after");
  EXPECT_EQ(next, pattern(10, 4));
}

// Receives posted while an unexpected payload is still arriving: the first
// one not cancelled gets it once its last byte is in; one cancelled meanwhile
// leaves the message to the next receive of its tag.
TEST(TcpWire, AReceivePostedWhileItsPayloadArrivesGetsItUnlessCancelled) {
  ScriptedPeer peer;
  const std::size_t size = 20000;
  const Bytes message = pattern(size, 6);
  peer.send_header(tcp::FrameType::eager, 3, size);
  peer.write_all(message.data(), size / 2);
  peer.settle();  // stored in part: no receive was posted
  Bytes withdrawn(size, 0xEE), in(size);
  auto cancelled = peer.t->irecv(0, 3, withdrawn.data(), withdrawn.size());
  peer.t->cancel(*cancelled);
  auto request = peer.t->irecv(0, 3, in.data(), in.size());
  peer.write_all(message.data() + size / 2, size - size / 2);
  wait(*peer.t, request, Deadline::after(5s), "recv posted while the payload arrived");
  EXPECT_EQ(in, message);
  EXPECT_EQ(withdrawn, Bytes(size, 0xEE)) << "the cancelled receive was written";
  EXPECT_EQ(cancelled->state(), Request::State::cancelled);
}

// A peer that dies in the middle of a credited payload fails the receive it
// was filling and every other pending request on it.
TEST(TcpCreditWire, PeerDyingMidPayloadFailsEveryPendingRequest) {
  ScriptedPeer peer;
  const std::size_t q = peer.window / 4;
  Bytes in(q), other(16);
  auto filling = peer.t->irecv(0, 1, in.data(), in.size());
  auto waiting = peer.t->irecv(0, 2, other.data(), other.size());
  const Bytes message = pattern(q, 5);
  peer.send_header(tcp::FrameType::eager, 1, q);
  peer.write_all(message.data(), q / 2);
  peer.settle();
  peer.fd.reset();
  std::string what = failure_of(*peer.t, filling);
  EXPECT_NE(what.find("closed"), std::string::npos) << what;
  EXPECT_EQ(waiting->state(), Request::State::failed);
}

}  // namespace
}  // namespace rcoll::transport
