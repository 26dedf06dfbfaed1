// The transport contract (src/transport/transport.hpp), written once and run
// on every backend of test::transport_backends(); ranks are threads, each
// driving its own transport. The RDMA backends run where a device exists
// (the Soft-RoCE guest of `ctest -L rdma`, which runs this executable with
// --gtest_filter=*rdma*) and skip elsewhere. What only one backend does is
// tested beside it (tcp_transport_test, rdma_*_test).
#include <gtest/gtest.h>

#include <atomic>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <latch>
#include <thread>
#include <vector>

#include "common/deadline.hpp"
#include "rcoll/errors.hpp"
#include "support/run_ranks.hpp"
#include "support/transport_fixture.hpp"
#include "transport/truncation.hpp"
#include "transport/wait.hpp"

namespace rcoll::transport {
namespace {

using namespace std::chrono_literals;
using test::Bytes;
using test::TransportWorld;

// Generous: a bound for failures only (TCG-emulated Soft-RoCE is slow).
Deadline soon() { return Deadline::after(30s); }

// Never zero, so a byte the transport wrote differs from a zeroed buffer.
Bytes pattern(std::size_t n, std::uint32_t seed) {
  Bytes data(n);
  for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<std::uint8_t>(1 + (i * 131 + seed * 7 + (i >> 9)) % 251);
  return data;
}

void send(Transport& t, int peer, Tag tag, const Bytes& data) { test::send_bytes(t, peer, tag, data, soon()); }
Bytes recv(Transport& t, int peer, Tag tag, std::size_t capacity) { return test::recv_bytes(t, peer, tag, capacity, soon()); }

// One empty round trip between ranks 0 and 1, so their connection exists.
void warm_up(Transport& t, int rank) {
  if (rank == 0) {
    send(t, 1, 0, {});
    recv(t, 1, 0, 0);
  } else {
    recv(t, 0, 0, 0);
    send(t, 0, 0, {});
  }
}

// Lets the transport read whatever has arrived, without any request to wait on.
void pump_for(Transport& t, std::chrono::milliseconds span) {
  auto deadline = Deadline::after(span);
  while (!deadline.expired())
    if (!t.progress()) t.wait_for_activity(1ms);
}

class TransportContract : public test::OnBackend<std::string> {
 protected:
  TransportWorld world(int size) { return test::make_transport_world(GetParam(), size); }
  // Sizes around the eager limit; inproc has none, so use TCP's region there.
  static std::size_t eager(Transport& t) { return std::min<std::size_t>(t.capabilities().eager_limit, 64 * 1024); }
  bool is_tcp() const { return GetParam() == "tcp"; }
};

TEST_P(TransportContract, PingPongAcrossProtocolSizes) {
  auto w = world(2);
  const std::size_t e = eager(w.at(0));
  const std::vector<std::size_t> sizes = {0, 1, 1001, e - 1, e, e + 1, (3u << 20) + 7};
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      Bytes data = pattern(sizes[i], static_cast<std::uint32_t>(i));
      Tag tag = 100 + i;
      if (rank == 0) {
        send(t, 1, tag, data);
        EXPECT_EQ(recv(t, 1, tag, sizes[i] + 16), data) << "echo of " << sizes[i] << " bytes";
      } else {
        Bytes got = recv(t, 0, tag, sizes[i]);
        EXPECT_EQ(got, data) << sizes[i] << " bytes";
        send(t, 0, tag, got);
      }
    }
  });
}

TEST_P(TransportContract, SameTagArrivesInPostingOrder) {
  auto w = world(2);
  const std::size_t e = eager(w.at(0));
  constexpr int count = 12;
  auto size_of = [&](int i) { return i % 3 == 1 ? e + 100 * i : std::size_t(10 * i); };
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    std::vector<Bytes> buffers;
    std::vector<RequestPtr> requests;
    for (int i = 0; i < count; ++i) {
      buffers.push_back(rank == 0 ? pattern(size_of(i), i) : Bytes(e + 100 * count));
      Bytes& b = buffers.back();
      requests.push_back(rank == 0 ? t.isend(1, 7, b.data(), b.size()) : t.irecv(0, 7, b.data(), b.size()));
    }
    wait_all(t, requests, soon(), "ordering");
    if (rank == 0) return;
    for (int i = 0; i < count; ++i) {
      buffers[i].resize(requests[i]->bytes());
      EXPECT_EQ(buffers[i], pattern(size_of(i), i)) << "message " << i;
    }
  });
}

TEST_P(TransportContract, DifferentTagsMatchOutOfOrder) {
  auto w = world(2);
  for (std::size_t size : {std::size_t(100), eager(w.at(0)) + 100}) {
    test::run_ranks(2, [&](int rank) {
      Transport& t = w.at(rank);
      Bytes a = pattern(size, 1), b = pattern(size, 2);
      if (rank == 0) {
        std::vector<RequestPtr> sends = {t.isend(1, 21, a.data(), a.size()), t.isend(1, 22, b.data(), b.size())};
        wait_all(t, sends, soon(), "send A, B");
      } else {
        EXPECT_EQ(recv(t, 0, 22, size), b);  // B first, though A was sent first
        EXPECT_EQ(recv(t, 0, 21, size), a);
      }
    });
  }
}

TEST_P(TransportContract, UnexpectedMessagesAreKeptUntilReceived) {
  auto w = world(2);
  const std::size_t sizes[] = {0, 777, eager(w.at(0)), eager(w.at(0)) + 1, 2u << 20};
  std::latch sent(2);
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    warm_up(t, rank);
    std::vector<Bytes> data;
    for (std::size_t i = 0; i < std::size(sizes); ++i) data.push_back(pattern(sizes[i], 40 + i));
    if (rank == 0) {
      std::vector<RequestPtr> sends;
      for (std::size_t i = 0; i < data.size(); ++i) sends.push_back(t.isend(1, 40 + i, data[i].data(), data[i].size()));
      sent.arrive_and_wait();
      wait_all(t, sends, soon(), "unexpected sends");
    } else {
      sent.arrive_and_wait();
      pump_for(t, 50ms);  // everything (or its request to send) has arrived, unmatched
      for (std::size_t i = data.size(); i-- > 0;) EXPECT_EQ(recv(t, 0, 40 + i, sizes[i]), data[i]) << sizes[i];
    }
  });
}

TEST_P(TransportContract, AllPairsManyConcurrentMessages) {
  constexpr int size = 5;
  auto w = world(size);
  const std::size_t e = eager(w.at(0));
  const std::size_t sizes[] = {0, 333, e + 333, 5000};
  auto seed = [](int from, int to, int k) { return static_cast<std::uint32_t>(from * 100 + to * 10 + k); };
  test::run_ranks(size, [&](int rank) {
    Transport& t = w.at(rank);
    std::vector<Bytes> out, in;
    std::vector<RequestPtr> requests;
    out.reserve(size * 4);
    in.reserve(size * 4);
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      for (int k = 0; k < 4; ++k) {
        Bytes& o = out.emplace_back(pattern(sizes[k], seed(rank, peer, k)));
        Bytes& i = in.emplace_back(sizes[k]);
        requests.push_back(t.irecv(peer, k % 2, i.data(), i.size()));
        requests.push_back(t.isend(peer, k % 2, o.data(), o.size()));
      }
    }
    wait_all(t, requests, soon(), "all pairs");
    std::size_t n = 0;
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      for (int k = 0; k < 4; ++k) EXPECT_EQ(in[n++], pattern(sizes[k], seed(peer, rank, k))) << peer << "/" << k;
    }
  });
}

TEST_P(TransportContract, TruncationFailsTheReceiveOnly) {
  auto w = world(2);
  const std::size_t big = eager(w.at(0)) + 500;
  std::atomic<bool> sender_done{false};
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    Bytes m1 = pattern(100, 1), m2 = pattern(60, 2), m3 = pattern(big, 3), m4 = pattern(40, 4);
    if (rank == 0) {
      std::vector<RequestPtr> sends = {t.isend(1, 1, m1.data(), m1.size()), t.isend(1, 1, m2.data(), m2.size()),
                                       t.isend(1, 2, m3.data(), m3.size()), t.isend(1, 2, m4.data(), m4.size())};
      try {
        wait_all(t, sends, soon(), "sends");
      } catch (...) {
        sender_done = true;
        throw;
      }
      sender_done = true;
      return;
    }
    // Progress happens only inside calls (transport.hpp): the receiver keeps
    // driving its transport until the sender is done, as a rank inside its
    // next operation would, so the refusal of the truncated rendezvous (which
    // may wait for a credit) reaches the sender.
    struct KeepProgressing {
      Transport& t;
      std::atomic<bool>& done;
      ~KeepProgressing() {
        Deadline limit = soon();
        while (!done && !limit.expired()) {
          t.progress();
          t.wait_for_activity(std::chrono::milliseconds(1));
        }
      }
    } keep{t, sender_done};
    try {
      recv(t, 0, 1, 50);
      ADD_FAILURE() << "eager truncation not reported";
    } catch (const TruncationError& e) {  // an IoError the communicator can tell from a failed peer
      EXPECT_EQ(e.peer(), 0);
      EXPECT_EQ(e.length(), 100u);
      EXPECT_EQ(e.capacity(), 50u);
      EXPECT_NE(std::string(e.what()).find("exceeds"), std::string::npos) << e.what();
    }
    EXPECT_EQ(recv(t, 0, 1, 100), m2);
    EXPECT_THROW(recv(t, 0, 2, 1000), TruncationError);
    EXPECT_EQ(recv(t, 0, 2, 100), m4);
  });
}

TEST_P(TransportContract, ReceiveTimeoutNamesThePeer) {
  auto w = world(2);
  std::latch done(2);
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    if (rank == 1) {
      Bytes buf(8);
      auto start = Deadline::Clock::now();
      try {
        wait(t, t.irecv(0, 5, buf.data(), buf.size()), Deadline::after(200ms), "lonely recv");
        ADD_FAILURE() << "no timeout";
      } catch (const TimeoutError& e) {
        EXPECT_EQ(e.waiting_for(), std::vector<int>{0});
        EXPECT_NE(std::string(e.what()).find("lonely recv"), std::string::npos) << e.what();
      }
      EXPECT_LT(Deadline::Clock::now() - start, 2s);
    }
    done.arrive_and_wait();  // rank 0 stays alive (and silent) meanwhile
  });
}

TEST_P(TransportContract, CancelledReceiveLeavesBufferAndMessage) {
  auto w = world(2);
  const std::size_t big = eager(w.at(0)) + 100;
  std::latch cancelled(2);
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    Bytes small = pattern(100, 1), large = pattern(big, 2);
    if (rank == 0) {
      cancelled.arrive_and_wait();
      std::vector<RequestPtr> sends = {t.isend(1, 5, small.data(), small.size()),
                                       t.isend(1, 6, large.data(), large.size())};
      wait_all(t, sends, soon(), "sends after cancel");
      return;
    }
    Bytes untouched_small(100, 0), untouched_large(big, 0);
    auto r1 = t.irecv(0, 5, untouched_small.data(), untouched_small.size());
    auto r2 = t.irecv(0, 6, untouched_large.data(), untouched_large.size());
    t.cancel(*r1);
    t.cancel(*r2);
    EXPECT_EQ(r1->state(), Request::State::cancelled);
    cancelled.arrive_and_wait();
    // The messages go to the next receives, not to the withdrawn ones.
    EXPECT_EQ(recv(t, 0, 5, 100), small);
    EXPECT_EQ(recv(t, 0, 6, big), large);
    EXPECT_EQ(untouched_small, Bytes(100, 0));
    EXPECT_EQ(untouched_large, Bytes(big, 0));
    EXPECT_EQ(r2->state(), Request::State::cancelled);
  });
}

// Cancel while the payload is streaming into the buffer: nothing is written
// after cancel() returns, and the connection stays usable.
TEST_P(TransportContract, CancelDuringTransferStopsWritingTheBuffer) {
  // Peeking at the buffer while the receive is pending needs a receiver-side
  // transfer (TCP: this thread's progress() calls; RDMA: the device's writes).
  if (GetParam() == "inproc") GTEST_SKIP() << "inproc delivers a message in one memcpy on the sender's thread";
  auto w = world(2);
  const std::size_t size = 32u << 20;
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    if (rank == 0) {
      Bytes data = pattern(size, 9);
      send(t, 1, 1, data);
      send(t, 1, 2, pattern(10, 10));
      return;
    }
    Bytes buf(size, 0);
    auto request = t.irecv(0, 1, buf.data(), buf.size());
    auto deadline = soon();
    while (request->pending() && buf[0] == 0 && !deadline.expired()) t.progress();
    ASSERT_NE(buf[0], 0) << "no byte arrived";
    if (request->pending()) t.cancel(*request);
    Bytes snapshot = buf;
    EXPECT_EQ(recv(t, 0, 2, 10), pattern(10, 10));
    pump_for(t, 50ms);  // a late write would land now
    EXPECT_TRUE(buf == snapshot) << "buffer written after cancel";
  });
}

// wake() from another thread ends a wait_for_activity() under way, and a
// wake() before a wait ends that wait at once; nothing else is due (a
// receive is pending, nothing is sent), so only wake() can end the 10 s
// waits early. A wait may also return for reasons of its own (a timer):
// the loop waits again until the wake has come.
TEST_P(TransportContract, WakeFromAnotherThreadEndsAWait) {
  auto w = world(2);
  Transport& t = w.at(0);
  test::run_ranks(2, [&](int rank) { warm_up(w.at(rank), rank); });
  Bytes none(8);
  RequestPtr pending = t.irecv(1, 77, none.data(), none.size());
  for (int round = 0; round < 2; ++round) {
    std::atomic<bool> woken{false};
    const auto start = std::chrono::steady_clock::now();
    std::thread waker([&] {
      std::this_thread::sleep_for(100ms);
      woken = true;
      t.wake();
    });
    // The waker sets `woken` before it wakes: a wake that comes after this
    // check ends the wait that follows it.
    while (!woken.load()) {
      t.wait_for_activity(10s);
      t.progress();
    }
    waker.join();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s) << "round " << round << ": the wake was missed";
  }
  t.wake();
  const auto start = std::chrono::steady_clock::now();
  t.wait_for_activity(10s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s) << "a wake before the wait was missed";
  EXPECT_TRUE(pending->pending());
  t.cancel(*pending);
}

TEST_P(TransportContract, SendToSelf) {
  auto w = world(2);
  Transport& t = w.at(1);
  for (std::size_t size : {std::size_t(0), std::size_t(50), eager(t) + 1}) {
    Bytes a = pattern(size, 3), got(size);
    send(t, 1, 3, a);  // before the receive
    EXPECT_EQ(recv(t, 1, 3, size), a);
    auto r = t.irecv(1, 4, got.data(), got.size());  // receive first
    send(t, 1, 4, a);
    wait(t, r, soon(), "self recv");
    EXPECT_EQ(got, a);
  }
}

TEST_P(TransportContract, PeerFailureFailsPendingRequestsQuickly) {
  // inproc: an in-process peer cannot fail; RDMA: rdma_errors_test (a peer
  // that only receives learns of the end through rdma_cm or its next send).
  if (!is_tcp()) GTEST_SKIP() << "TCP only (rdma_errors_test covers RDMA)";
  for (int victim : {1, 0}) {
    auto w = world(2);
    std::latch connected(2);
    test::run_ranks(2, [&](int rank) {
      Transport& t = w.at(rank);
      warm_up(t, rank);
      connected.arrive_and_wait();
      if (rank == victim) {
        std::this_thread::sleep_for(20ms);  // let the survivor start waiting
        w.ranks[rank].reset();
        return;
      }
      int peer = 1 - rank;
      Bytes buf(16);
      auto start = Deadline::Clock::now();
      try {
        wait(t, t.irecv(peer, 2, buf.data(), buf.size()), soon(), "recv from a dying peer");
        ADD_FAILURE() << "no error";
      } catch (const IoError& e) {
        EXPECT_EQ(e.peer(), peer);
        EXPECT_NE(std::string(e.what()).find("closed"), std::string::npos) << e.what();
      }
      EXPECT_LT(Deadline::Clock::now() - start, 2s);
      auto later = t.isend(peer, 3, buf.data(), buf.size());
      EXPECT_EQ(later->state(), Request::State::failed) << "later sends fail at once";
    });
  }
}

// A rank that sends its last message and exits has done nothing wrong: the
// message must still be delivered to a receive posted after the peer left
// (the end of every job looks like this).
TEST_P(TransportContract, MessagesSentBeforeAPeerLeftAreStillDelivered) {
  auto w = world(2);
  std::latch sent(2), gone(2);
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    warm_up(t, rank);
    if (rank == 1) {
      Bytes last = pattern(1000, 7);
      wait(t, t.isend(0, 5, last.data(), last.size()), soon(), "last send");
      sent.arrive_and_wait();
      w.ranks[rank].reset();
      gone.arrive_and_wait();
      return;
    }
    sent.arrive_and_wait();
    gone.arrive_and_wait();
    std::this_thread::sleep_for(50ms);  // the close has surely arrived by now
    t.progress();
    Bytes buf(1000);
    auto recv = t.irecv(1, 5, buf.data(), buf.size());
    wait(t, recv, soon(), "recv after the peer left");
    EXPECT_EQ(recv->bytes(), 1000u);
    EXPECT_EQ(buf, pattern(1000, 7));
    if (is_tcp()) {
      Bytes more(16);
      auto nothing = t.irecv(1, 5, more.data(), more.size());
      t.progress();
      EXPECT_EQ(nothing->state(), Request::State::failed) << "nothing more can come from a peer that left";
    }
  });
}

// A small (eager) send completes without the receiver's help: here rank 0
// does not touch rank 1 until rank 2 has heard from rank 1, so a transport
// that needs the receiver to set the pair up deadlocks until the deadline.
TEST_P(TransportContract, EagerSendLeavesWithoutTheReceiversHelp) {
  auto w = world(3);
  // Short where set-up takes milliseconds; the emulated RDMA guest is slow.
  auto deadline = [&] { return GetParam() == "tcp" || GetParam() == "inproc" ? Deadline::after(5s) : soon(); };
  const Bytes m10 = pattern(16, 10), m12 = pattern(24, 12), m20 = pattern(32, 20);
  test::run_ranks(3, [&](int rank) {
    Transport& t = w.at(rank);
    auto send_now = [&](int peer, const Bytes& data) {
      wait(t, t.isend(peer, 9, data.data(), data.size()), deadline(), "eager send");
    };
    auto recv_now = [&](int peer, std::size_t capacity) {
      Bytes data(capacity);
      auto request = t.irecv(peer, 9, data.data(), data.size());
      wait(t, request, deadline(), "recv");
      data.resize(request->bytes());
      return data;
    };
    if (rank == 0) {
      EXPECT_EQ(recv_now(2, 64), m20);
      EXPECT_EQ(recv_now(1, 64), m10);
    } else if (rank == 1) {
      send_now(0, m10);  // rank 0 is waiting for rank 2 meanwhile
      send_now(2, m12);
    } else {
      EXPECT_EQ(recv_now(1, 64), m12);
      send_now(0, m20);
    }
  });
}

// Both ranks' first use of the pair is a send, at the same moment, in fresh
// worlds (TCP: both dial; one connection must win without losing,
// duplicating or reordering a message), at eager and rendezvous sizes.
TEST_P(TransportContract, SimultaneousFirstSendsBothWays) {
  // Many rounds where a world costs milliseconds; a few on emulated RDMA.
  const int rounds = GetParam() == "tcp" || GetParam() == "inproc" ? 20 : 4;
  for (int round = 0; round < rounds; ++round) {
    auto w = world(2);
    const std::size_t e = eager(w.at(0));
    const std::size_t sizes[] = {8, e + 1, 0, 3 * e + 5, 1000, e};
    auto seed = [&](int from, std::size_t i) { return static_cast<std::uint32_t>(round * 100 + from * 10 + i); };
    std::latch start(2);
    test::run_ranks(2, [&](int rank) {
      Transport& t = w.at(rank);
      int peer = 1 - rank;
      std::vector<Bytes> out, in;
      for (std::size_t i = 0; i < std::size(sizes); ++i) {
        out.push_back(pattern(sizes[i], seed(rank, i)));
        in.emplace_back(3 * e + 5);
      }
      std::vector<RequestPtr> requests;
      start.arrive_and_wait();
      for (auto& o : out) requests.push_back(t.isend(peer, 3, o.data(), o.size()));
      for (auto& i : in) requests.push_back(t.irecv(peer, 3, i.data(), i.size()));
      wait_all(t, requests, soon(), "simultaneous first sends");
      for (std::size_t i = 0; i < std::size(sizes); ++i) {
        in[i].resize(requests[std::size(sizes) + i]->bytes());
        EXPECT_EQ(in[i], pattern(sizes[i], seed(peer, i))) << "round " << round << ", message " << i;
      }
    });
    if (HasFailure()) break;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, TransportContract, ::testing::ValuesIn(test::transport_backends()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace rcoll::transport
