// The transport contract on the RDMA backend, ranks as threads on one
// (Soft-RoCE) device, for each way of connecting and of waiting: eager and
// rendezvous sizes, ordering, unexpected messages, truncation, cancel, send
// to self, several ranks at once, and credit flow control.
#include <gtest/gtest.h>

#include <latch>

#include "rcoll/errors.hpp"
#include "rdma_test_world.hpp"

namespace rcoll::transport {
namespace {

using namespace std::chrono_literals;
using test::Bytes;
using test::pattern;
using test::pump_for;
using test::recv;
using test::send;

struct Mode {
  std::string name;
  rdma::PollMode poll;
  rdma::ConnectMode connect;
};

class RdmaTransportTest : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override { RCOLL_REQUIRE_RDMA(); }

  rdma::RdmaOptions options() const {
    auto o = test::test_options();
    o.poll = GetParam().poll;
    o.connect = GetParam().connect;
    return o;
  }
  test::RdmaWorld world(int size) { return test::make_rdma_world(size, options()); }
  std::size_t eager() const { return options().eager_limit; }
  std::size_t chunk() const { return options().chunk_bytes; }
};

// One empty round trip, so that the connection exists.
void warm_up(Transport& t, int rank) {
  if (rank == 0) {
    send(t, 1, 0, Bytes{});
    recv(t, 1, 0, 0);
  } else {
    recv(t, 0, 0, 0);
    send(t, 0, 0, Bytes{});
  }
}

TEST_P(RdmaTransportTest, PingPongAcrossProtocolSizes) {
  auto w = world(2);
  const std::size_t e = eager();
  const std::vector<std::size_t> sizes = {0, 1, 1001, e - 1, e, e + 1, 3 * chunk() + 7};
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
  auto stats = rdma_stats(w.at(0));
  ASSERT_TRUE(stats.has_value());
  EXPECT_GE(stats->rendezvous_messages, 2u);  // e + 1 and the multi-chunk one
  EXPECT_GE(stats->rdma_writes, 5u);          // 1 + 4 chunks
  EXPECT_GE(stats->eager_messages, 5u);
  EXPECT_EQ(stats->connected_peers, 1);
  if (GetParam().poll == rdma::PollMode::event) {
    EXPECT_GT(stats->cq_events, 0u) << "event mode never woke up on a completion event";
  } else if (GetParam().poll == rdma::PollMode::busy) {
    EXPECT_EQ(stats->cq_events, 0u);
  }
}

TEST_P(RdmaTransportTest, SameTagArrivesInPostingOrder) {
  auto w = world(2);
  const std::size_t e = eager();
  constexpr int count = 12;
  auto size_of = [&](int i) { return i % 3 == 1 ? e + 1000 * i : std::size_t(10 * i); };
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    std::vector<Bytes> buffers;
    std::vector<RequestPtr> requests;
    for (int i = 0; i < count; ++i) {
      buffers.push_back(rank == 0 ? pattern(size_of(i), i) : Bytes(e + 1000 * count));
      Bytes& b = buffers.back();
      requests.push_back(rank == 0 ? t.isend(1, 7, b.data(), b.size()) : t.irecv(0, 7, b.data(), b.size()));
    }
    wait_all(t, requests, test::soon(), "ordering");
    if (rank == 0) return;
    for (int i = 0; i < count; ++i) {
      buffers[i].resize(requests[i]->bytes());
      EXPECT_EQ(buffers[i], pattern(size_of(i), i)) << "message " << i;
    }
  });
}

TEST_P(RdmaTransportTest, DifferentTagsMatchOutOfOrder) {
  auto w = world(2);
  for (std::size_t size : {std::size_t(100), eager() + 100}) {
    test::run_ranks(2, [&](int rank) {
      Transport& t = w.at(rank);
      Bytes a = pattern(size, 1), b = pattern(size, 2);
      if (rank == 0) {
        std::vector<RequestPtr> sends = {t.isend(1, 21, a.data(), a.size()), t.isend(1, 22, b.data(), b.size())};
        wait_all(t, sends, test::soon(), "send A, B");
      } else {
        EXPECT_EQ(recv(t, 0, 22, size), b);  // B first, though A was sent first
        EXPECT_EQ(recv(t, 0, 21, size), a);
      }
    });
  }
}

TEST_P(RdmaTransportTest, UnexpectedEagerAndRendezvousMessagesWait) {
  auto w = world(2);
  const std::size_t sizes[] = {0, 777, eager(), eager() + 1, 2 * chunk() + 3};
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
      wait_all(t, sends, test::soon(), "unexpected sends");
    } else {
      sent.arrive_and_wait();
      pump_for(t, 200ms);  // the messages and RTSs arrive with no receive posted
      EXPECT_GE(rdma_stats(t)->unexpected_messages, 3u);
      for (std::size_t i = data.size(); i-- > 0;) EXPECT_EQ(recv(t, 0, 40 + i, sizes[i]), data[i]) << sizes[i];
    }
  });
}

TEST_P(RdmaTransportTest, FourRanksManyConcurrentMessages) {
  constexpr int size = 4;
  auto w = world(size);
  const std::size_t sizes[] = {0, 333, eager() + 333, chunk() + 5000};
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
    wait_all(t, requests, test::soon(), "all pairs");
    std::size_t n = 0;
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      for (int k = 0; k < 4; ++k) EXPECT_EQ(in[n++], pattern(sizes[k], seed(peer, rank, k))) << peer << "/" << k;
    }
  });
}

TEST_P(RdmaTransportTest, TruncationFailsTheReceiveOnly) {
  auto w = world(2);
  const std::size_t big = eager() + 500;
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    Bytes m1 = pattern(100, 1), m2 = pattern(60, 2), m3 = pattern(big, 3), m4 = pattern(40, 4);
    if (rank == 0) {
      std::vector<RequestPtr> sends = {t.isend(1, 1, m1.data(), m1.size()), t.isend(1, 1, m2.data(), m2.size()),
                                       t.isend(1, 2, m3.data(), m3.size()), t.isend(1, 2, m4.data(), m4.size())};
      wait_all(t, sends, test::soon(), "sends");
      return;
    }
    try {
      recv(t, 0, 1, 50);
      ADD_FAILURE() << "eager truncation not reported";
    } catch (const IoError& e) {
      EXPECT_EQ(e.peer(), 0);
      EXPECT_NE(std::string(e.what()).find("exceeds"), std::string::npos) << e.what();
    }
    EXPECT_EQ(recv(t, 0, 1, 100), m2);
    EXPECT_THROW(recv(t, 0, 2, 1000), IoError);  // rendezvous truncation
    EXPECT_EQ(recv(t, 0, 2, 100), m4);
  });
}

TEST_P(RdmaTransportTest, SendToSelf) {
  auto w = world(2);
  Transport& t = w.at(1);
  for (std::size_t size : {std::size_t(0), std::size_t(50), eager() + 1}) {
    Bytes a = pattern(size, 3), got(size);
    send(t, 1, 3, a);
    EXPECT_EQ(recv(t, 1, 3, size), a);
    auto r = t.irecv(1, 4, got.data(), got.size());
    send(t, 1, 4, a);
    wait(t, r, test::soon(), "self recv");
    EXPECT_EQ(got, a);
  }
}

TEST_P(RdmaTransportTest, CancelledReceivesLeaveBufferAndMessage) {
  auto w = world(2);
  const std::size_t big = eager() + 100;
  std::latch cancelled(2);
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    warm_up(t, rank);
    Bytes small = pattern(100, 1), large = pattern(big, 2);
    if (rank == 0) {
      cancelled.arrive_and_wait();
      std::vector<RequestPtr> sends = {t.isend(1, 5, small.data(), small.size()),
                                       t.isend(1, 6, large.data(), large.size())};
      wait_all(t, sends, test::soon(), "sends after cancel");
      return;
    }
    Bytes untouched_small(100, 0), untouched_large(big, 0);
    auto r1 = t.irecv(0, 5, untouched_small.data(), untouched_small.size());
    auto r2 = t.irecv(0, 6, untouched_large.data(), untouched_large.size());
    t.cancel(*r1);
    t.cancel(*r2);
    EXPECT_EQ(r1->state(), Request::State::cancelled);
    cancelled.arrive_and_wait();
    EXPECT_EQ(recv(t, 0, 5, 100), small);
    EXPECT_EQ(recv(t, 0, 6, big), large);
    EXPECT_EQ(untouched_small, Bytes(100, 0));
    EXPECT_EQ(untouched_large, Bytes(big, 0));
    EXPECT_EQ(r2->state(), Request::State::cancelled);
  });
}

// Cancel while the writes stream into the buffer: nothing lands after
// cancel() returns, and the connection stays usable.
TEST_P(RdmaTransportTest, CancelDuringRendezvousStopsTheWrites) {
  auto w = world(2);
  const std::size_t size = 32 * chunk();
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
    auto deadline = test::soon();
    while (request->pending() && buf[0] == 0 && !deadline.expired()) t.progress();
    ASSERT_NE(buf[0], 0) << "no byte arrived";
    if (request->pending()) t.cancel(*request);
    Bytes snapshot = buf;
    EXPECT_EQ(recv(t, 0, 2, 10), pattern(10, 10));
    pump_for(t, 50ms);
    EXPECT_TRUE(buf == snapshot) << "buffer written after cancel";
  });
}

// More small messages than the receiver has buffers, in both directions at
// once, before anyone posts a receive: credits hold the senders back (an
// overrun would fail with an RNR error, as RNR retry is off), and credits
// flow back as the receivers consume, without deadlock.
TEST_P(RdmaTransportTest, CreditFloodNeitherOverrunsNorDeadlocks) {
  auto w = world(2);
  const int count = 5 * options().ring_slots;
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    warm_up(t, rank);
    int peer = 1 - rank;
    std::vector<Bytes> out;
    std::vector<RequestPtr> sends;
    for (int i = 0; i < count; ++i) {
      out.push_back(pattern(static_cast<std::size_t>(16 + i % 200), static_cast<std::uint32_t>(rank * 1000 + i)));
      sends.push_back(t.isend(peer, 9, out.back().data(), out.back().size()));
    }
    pump_for(t, 100ms);
    for (int i = 0; i < count; ++i)
      ASSERT_EQ(recv(t, peer, 9, 256), pattern(static_cast<std::size_t>(16 + i % 200), static_cast<std::uint32_t>(peer * 1000 + i)))
          << "message " << i;
    wait_all(t, sends, test::soon(), "flood sends");
  });
  auto stats = rdma_stats(w.at(0));
  EXPECT_GE(stats->eager_messages, static_cast<std::uint64_t>(count));
}

// A rank that never used a peer still accepts its connection (discovery)
// and buffers its messages before any receive is posted.
// (Both ways round: with rdma_cm the lower rank always connects, so a
// higher rank that starts has to knock first.)
TEST_P(RdmaTransportTest, PassiveSideIsDiscovered) {
  for (int sender : {0, 1}) {
    auto w = world(2);
    std::latch sent(2);
    test::run_ranks(2, [&](int rank) {
      Transport& t = w.at(rank);
      Bytes msg = pattern(300, 5);
      if (rank == sender) {
        send(t, 1 - sender, 3, msg);  // completes only once the other rank connected back
        sent.arrive_and_wait();
        return;
      }
      auto deadline = test::soon();
      while (rdma_stats(t)->connected_peers == 0 && !deadline.expired()) pump_for(t, 10ms);
      sent.arrive_and_wait();
      EXPECT_EQ(recv(t, sender, 3, 300), msg);
    });
  }
}

std::vector<Mode> modes() {
  return {{"bootstrap_auto", rdma::PollMode::automatic, rdma::ConnectMode::bootstrap},
          {"bootstrap_busy", rdma::PollMode::busy, rdma::ConnectMode::bootstrap},
          {"bootstrap_event", rdma::PollMode::event, rdma::ConnectMode::bootstrap},
          {"rdmacm_auto", rdma::PollMode::automatic, rdma::ConnectMode::rdmacm}};
}

INSTANTIATE_TEST_SUITE_P(Modes, RdmaTransportTest, ::testing::ValuesIn(modes()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace rcoll::transport
