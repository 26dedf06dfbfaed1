// What only the RDMA backend does, ranks as threads on one (Soft-RoCE)
// device, for each way of connecting and of waiting: the protocol and
// polling mode really used (counters), credit flow control, and the
// discovery of a peer that never used us. The transport contract itself
// (sizes, ordering, unexpected messages, truncation, cancel, send to self,
// several ranks) runs on the RDMA backends in transport_contract_test.
#include <gtest/gtest.h>

#include <atomic>
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

// Each size goes by the protocol it should, and the polling mode is the one
// asked for (event mode sleeps on completion events, busy mode never does).
TEST_P(RdmaTransportTest, ProtocolsAndPollingModeShowInTheCounters) {
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

// rdma_cm: a rank that uses a pair before the lower rank "knocks", with a
// request that has no QP. The CM refuses a second request with the same
// QPN from the same device while the first is on file (a stale connection,
// never shown to the listener). Two jobs with one token, whose knocks get
// the same QPN, knock at once while their rank 0 only makes progress: the
// refused knock is sent again and both sends complete (with one QPN for
// all knocks the refused knocker waited for the connect timeout and failed).
TEST(RdmaCmKnock, TwoJobsKnockingAtOnceBothConnect) {
  RCOLL_REQUIRE_RDMA();
  auto options = test::test_options();
  options.connect = rdma::ConnectMode::rdmacm;
  for (int round = 0; round < 6; ++round) {
    test::RdmaWorld jobs[2] = {test::make_rdma_world(2, options, 10s), test::make_rdma_world(2, options, 10s)};
    std::latch start(4);
    std::atomic<bool> sent[2] = {false, false};
    test::run_ranks(4, [&](int thread) {
      const int job = thread / 2;
      Transport& t = jobs[job].at(thread % 2);
      Bytes msg = pattern(300, static_cast<std::uint32_t>(round * 10 + job));
      start.arrive_and_wait();
      if (thread % 2 == 1) {
        send(t, 0, 3, msg);  // completes only once rank 0 connected back
        sent[job] = true;
        return;
      }
      auto deadline = test::soon();  // rank 0 leaves peer 1 alone until the send is done
      while (!sent[job] && !deadline.expired()) pump_for(t, 5ms);
      EXPECT_EQ(recv(t, 1, 3, 300), msg) << "round " << round << ", job " << job;
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
