// The TCP transport's credited eager protocol between two real transports:
// messages above the free eager limit go EAGER while they fit the sender's
// credit, else by rendezvous (transport/tcp/eager_protocol.hpp). Checked from the
// outside: an EAGER send completes without a matching receive (the receiver
// only has to keep reading), a rendezvous send does not.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "common/deadline.hpp"
#include "rcoll/errors.hpp"
#include "support/run_ranks.hpp"
#include "support/transport_fixture.hpp"
#include "transport/tcp/wire.hpp"
#include "transport/wait.hpp"

namespace rcoll::transport {
namespace {

using namespace std::chrono_literals;
using test::Bytes;

Bytes pattern(std::size_t size, std::uint32_t seed) {
  Bytes bytes(size);
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& b : bytes) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::uint8_t>(x >> 24);
  }
  return bytes;
}

Deadline soon() { return Deadline::after(10s); }

// Drives `t` without posting anything until `flag` is set (the peer's
// frames are read, eager payloads parked as unexpected).
void progress_until(Transport& t, const std::atomic<bool>& flag) {
  Deadline limit = soon();
  while (!flag.load() && !limit.expired()) {
    t.progress();
    t.wait_for_activity(200us);
  }
  ASSERT_TRUE(flag.load()) << "the other rank never got there";
}

// True if `request` completes within `limit` while only `t` progresses.
bool completes(Transport& t, const RequestPtr& request, std::chrono::milliseconds limit) {
  Deadline deadline = Deadline::after(limit);
  while (request->pending() && !deadline.expired()) {
    t.progress();
    t.wait_for_activity(200us);
  }
  return request->state() == Request::State::done;
}

void send(Transport& t, int peer, Tag tag, const Bytes& data) { test::send_bytes(t, peer, tag, data, soon()); }
Bytes recv(Transport& t, int peer, Tag tag, std::size_t capacity) { return test::recv_bytes(t, peer, tag, capacity, soon()); }

// Both limits of a job of two ranks (the worlds below).
const std::size_t window = tcp::credit_window(2);
const std::size_t eager = tcp::credited_eager_limit(2);

// Rank 0's side of a check that its whole credit window is spendable:
// window / eager sends of `eager` bytes complete while rank 1 only reads.
// Rank 1 then receives them with receive_window_check().
void send_window_check(Transport& t, Tag tag, std::atomic<bool>& sent) {
  const std::size_t count = window / eager;
  std::vector<Bytes> out;
  std::vector<RequestPtr> sends;
  for (std::size_t i = 0; i < count; ++i) out.push_back(pattern(eager, 50 + i));
  for (auto& o : out) sends.push_back(t.isend(1, tag, o.data(), o.size()));
  for (std::size_t i = 0; i < count; ++i)
    EXPECT_TRUE(completes(t, sends[i], 5000ms)) << "credit for send " << i << " of " << count << " missing";
  sent = true;
  wait_all(t, sends, soon(), "window check");
}

void receive_window_check(Transport& t, Tag tag, const std::atomic<bool>& sent) {
  progress_until(t, sent);
  for (std::size_t i = 0; i < window / eager; ++i) EXPECT_EQ(recv(t, 0, tag, eager), pattern(eager, 50 + i));
}

TEST(TcpCredit, LimitsShrinkWithTheJobWithinTheirBounds) {
  EXPECT_EQ(tcp::credit_window(1), 4u << 20);
  EXPECT_EQ(tcp::credit_window(2), 4u << 20);
  EXPECT_EQ(tcp::credit_window(17), 4u << 20);
  EXPECT_EQ(tcp::credit_window(65), 1u << 20);
  EXPECT_EQ(tcp::credit_window(100000), 256u << 10);
  EXPECT_EQ(tcp::credited_eager_limit(2), 256u << 10) << "capped: larger ones cost a copy when unexpected";
  EXPECT_EQ(tcp::credited_eager_limit(100000), 64u << 10) << "a quarter of the smallest window";
  EXPECT_GT(eager, tcp::free_eager_limit);
  auto w = test::make_transport_world("tcp", 3);
  EXPECT_EQ(w.at(0).capabilities().eager_limit, tcp::credited_eager_limit(3)) << "larger messages use rendezvous";
}

// Every size on both sides of every limit, received into posted receives
// and as unexpected messages, arrives intact and in order.
TEST(TcpCredit, SizesAroundEveryLimitArriveIntact) {
  auto w = test::make_transport_world("tcp", 2);
  const std::size_t f = tcp::free_eager_limit;
  const std::vector<std::size_t> sizes = {f - 1,     f,         f + 1,     f + 4,      eager - 1,
                                          eager,     eager + 1, eager + 4, window + 1, 2 * window + 3};
  std::atomic<bool> sends_posted{false};
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    std::vector<Bytes> data;
    std::vector<RequestPtr> requests;
    if (rank == 1) {
      // Posted first: every receive is posted before rank 0 sends.
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        data.emplace_back(sizes[i] + 8);
        requests.push_back(t.irecv(0, i, data[i].data(), data[i].size()));
      }
      send(t, 0, 99, Bytes(1));
      wait_all(t, requests, soon(), "posted receives");
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        data[i].resize(requests[i]->bytes());
        EXPECT_EQ(data[i], pattern(sizes[i], i)) << "posted, size " << sizes[i];
      }
      // Unexpected: rank 0's messages are read before any receive exists.
      progress_until(t, sends_posted);
      auto until = Deadline::after(50ms);
      while (!until.expired()) t.progress();
      for (std::size_t i = 0; i < sizes.size(); ++i)
        EXPECT_EQ(recv(t, 0, 100, sizes[i]), pattern(sizes[i], 100 + i)) << "unexpected, size " << sizes[i];
      return;
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) data.push_back(pattern(sizes[i], i));
    recv(t, 1, 99, 1);
    for (std::size_t i = 0; i < sizes.size(); ++i) requests.push_back(t.isend(1, i, data[i].data(), data[i].size()));
    wait_all(t, requests, soon(), "sends to posted receives");
    std::vector<Bytes> later;
    std::vector<RequestPtr> more;
    for (std::size_t i = 0; i < sizes.size(); ++i) later.push_back(pattern(sizes[i], 100 + i));
    for (auto& m : later) more.push_back(t.isend(1, 100, m.data(), m.size()));
    sends_posted = true;
    wait_all(t, more, soon(), "unexpected sends");
  });
}

// Credited EAGER sends complete without a receive only while they fit the
// window: of window / eager + 2 sends of `eager` bytes that nobody receives
// yet, the last two wait (rendezvous: no credit left), as does a larger
// message. Once everything is received, the whole window is spendable again.
TEST(TcpCredit, UnexpectedCreditedMessagesStayWithinTheWindowAndCreditComesBack) {
  auto w = test::make_transport_world("tcp", 2);
  const std::size_t fit = window / eager, count = fit + 2;
  std::atomic<bool> checked{false}, sent{false};
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    if (rank == 1) {
      progress_until(t, checked);
      EXPECT_EQ(recv(t, 0, 2, 2 * eager + 1), pattern(2 * eager + 1, 99));
      for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(recv(t, 0, 1, eager), pattern(eager, i)) << "message " << i;
      send(t, 0, 3, Bytes(1));  // behind the CREDIT frames on the stream
      receive_window_check(t, 4, sent);
      return;
    }
    const Bytes large = pattern(2 * eager + 1, 99);
    auto rendezvous = t.isend(1, 2, large.data(), large.size());
    std::vector<Bytes> out;
    std::vector<RequestPtr> sends;
    for (std::size_t i = 0; i < count; ++i) out.push_back(pattern(eager, i));
    for (auto& o : out) sends.push_back(t.isend(1, 1, o.data(), o.size()));
    wait_all(t, std::vector<RequestPtr>(sends.begin(), sends.begin() + fit), soon(), "sends within the window");
    EXPECT_FALSE(completes(t, sends[fit], 50ms)) << "a send beyond the window completed without a receive";
    for (std::size_t i = fit; i < count; ++i) EXPECT_TRUE(sends[i]->pending()) << i;
    EXPECT_TRUE(rendezvous->pending()) << "a rendezvous send completed without its receive";
    checked = true;
    sends.push_back(rendezvous);
    wait_all(t, sends, soon(), "all sends");
    recv(t, 1, 3, 1);
    send_window_check(t, 4, sent);
  });
}

// Truncation of credited EAGER messages, into a posted receive and as an
// unexpected one (and of rendezvous messages next to them): the receive
// fails, the stream carries on, and the credit of the dropped payloads
// comes back (a quarter window each, which the receiver hands back at once).
TEST(TcpCredit, TruncatedCreditedMessagesFailTheReceiveAndReturnTheirCredit) {
  auto w = test::make_transport_world("tcp", 2);
  ASSERT_GE(window, 2 * eager) << "both credited EAGER messages below fit the window at once";
  const Bytes eager_posted = pattern(eager, 1), eager_unexpected = pattern(eager, 2);
  const Bytes rts_posted = pattern(2 * eager + 5, 3), rts_unexpected = pattern(2 * eager + 7, 4), last = pattern(100, 5);
  std::atomic<bool> sent{false};
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    if (rank == 1) {
      Bytes small(1000);
      std::vector<RequestPtr> posted = {t.irecv(0, 1, small.data(), small.size()),
                                        t.irecv(0, 2, small.data(), small.size())};
      send(t, 0, 9, Bytes(1));
      auto expect_truncated = [&](auto&& receive, const char* what) {
        try {
          receive();
          ADD_FAILURE() << what << ": truncation not reported";
        } catch (const IoError& e) {
          EXPECT_EQ(e.peer(), 0);
          EXPECT_NE(std::string(e.what()).find("exceeds"), std::string::npos) << what << ": " << e.what();
        }
      };
      expect_truncated([&] { wait(t, posted[0], soon(), "eager"); }, "EAGER, posted");
      expect_truncated([&] { wait(t, posted[1], soon(), "rendezvous"); }, "RTS, posted");
      EXPECT_EQ(recv(t, 0, 5, 1000), last);  // everything before it arrived: unexpected
      expect_truncated([&] { recv(t, 0, 3, 1000); }, "EAGER, unexpected");
      expect_truncated([&] { recv(t, 0, 4, 1000); }, "RTS, unexpected");
      send(t, 0, 9, Bytes(1));
      receive_window_check(t, 6, sent);
      return;
    }
    recv(t, 1, 9, 1);
    std::vector<RequestPtr> sends = {t.isend(1, 1, eager_posted.data(), eager_posted.size()),
                                     t.isend(1, 2, rts_posted.data(), rts_posted.size()),
                                     t.isend(1, 3, eager_unexpected.data(), eager_unexpected.size()),
                                     t.isend(1, 4, rts_unexpected.data(), rts_unexpected.size()),
                                     t.isend(1, 5, last.data(), last.size())};
    wait_all(t, sends, soon(), "sends");  // refused rendezvous sends complete too
    recv(t, 1, 9, 1);
    send_window_check(t, 6, sent);
  });
}

// Sends cancelled before they left (the connection is not up yet): a
// credited EAGER one never reaches the receiver and gives its credit back;
// a rendezvous one fails the receive as withdrawn.
TEST(TcpCredit, CancelledCreditedSendsGiveTheirCreditBack) {
  auto w = test::make_transport_world("tcp", 2);
  const Bytes credited = pattern(eager, 1), rts = pattern(3 * eager, 2), marker = pattern(8, 3);
  std::atomic<bool> sent{false}, done{false};
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    if (rank == 1) {
      receive_window_check(t, 4, sent);
      EXPECT_EQ(recv(t, 0, 1, eager), marker) << "the cancelled EAGER message arrived";
      Bytes in(3 * eager);
      auto request = t.irecv(0, 2, in.data(), in.size());
      try {
        wait(t, request, soon(), "withdrawn");
        ADD_FAILURE() << "the cancelled rendezvous message arrived";
      } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("withdrew"), std::string::npos) << e.what();
      }
      done = true;
      return;
    }
    auto cancelled_eager = t.isend(1, 1, credited.data(), credited.size());  // dials; nothing written yet
    auto cancelled_rts = t.isend(1, 2, rts.data(), rts.size());
    t.cancel(*cancelled_eager);
    t.cancel(*cancelled_rts);
    EXPECT_EQ(cancelled_eager->state(), Request::State::cancelled);
    EXPECT_EQ(cancelled_rts->state(), Request::State::cancelled);
    send(t, 1, 1, marker);
    send_window_check(t, 4, sent);
    progress_until(t, done);  // answers the clear-to-send of the cancelled message
  });
}

}  // namespace
}  // namespace rcoll::transport
