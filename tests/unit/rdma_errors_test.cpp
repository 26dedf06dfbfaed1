// RDMA failure paths: a peer that dies mid-transfer (its failed work
// completion becomes an IoError naming peer, QP, opcode and status, and
// fails everything pending on that peer), a peer that dies while we only
// wait to receive from it (keep-alive probe, or rdma_cm's disconnect), a
// peer that never connects, and the one-line reasons given when RDMA cannot
// run.
#include <gtest/gtest.h>

#include <latch>
#include <thread>

#include "rcoll/errors.hpp"
#include "rdma_test_world.hpp"

namespace rcoll::transport {
namespace {

using namespace std::chrono_literals;
using test::Bytes;
using test::pattern;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Runs everywhere: with no device it names that, with one it names the
// missing device; either way the transport refuses with the same step.
TEST(RdmaUnavailable, ReasonIsOneLineAndTheFactoryRefuses) {
  rdma::RdmaOptions options;
  options.device = "no_such_rdma_dev0";
  std::string why = rdma_unavailable_reason(options);
  ASSERT_FALSE(why.empty());
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  if (rdma_unavailable_reason().empty()) {
    EXPECT_TRUE(contains(why, "no_such_rdma_dev0: no such device")) << why;
  }
  TransportConfig config;
  try {
    make_rdma_transport(config, options);
    ADD_FAILURE() << "a missing device was accepted";
  } catch (const IoError& e) {
    EXPECT_EQ(e.step(), "rdma device selection");
    EXPECT_EQ(e.cause(), why);
  }
}

class RdmaErrors : public ::testing::Test {
 protected:
  void SetUp() override { RCOLL_REQUIRE_RDMA(); }
};

// Rank 1 goes away while rank 0 writes into its buffer: rank 0's writes
// run out of retries, and that completion fails everything on peer 1.
TEST_F(RdmaErrors, PeerDestroyedMidTransferFailsPendingRequests) {
  auto options = test::test_options();
  auto w = test::make_rdma_world(2, options);
  const std::size_t size = 64 * options.chunk_bytes;
  std::latch connected(2);
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    Bytes small(8);
    if (rank == 1) {
      test::send(t, 0, 1, small);
      connected.arrive_and_wait();
      Bytes buf(size, 0);
      auto request = t.irecv(0, 2, buf.data(), buf.size());
      auto deadline = test::soon();
      while (buf[0] == 0 && !deadline.expired()) t.progress();
      ASSERT_NE(buf[0], 0) << "the transfer never started";
      ASSERT_TRUE(request->pending()) << "the transfer ended before the peer died";
      w.ranks[1].reset();  // its QP is gone: later packets find nobody
      return;
    }
    EXPECT_EQ(test::recv(t, 1, 1, 8), small);
    connected.arrive_and_wait();
    Bytes data = pattern(size, 3);
    Bytes inbox(16);
    auto pending_recv = t.irecv(1, 7, inbox.data(), inbox.size());
    auto start = Deadline::Clock::now();
    try {
      wait(t, t.isend(1, 2, data.data(), data.size()), test::soon(), "send to a dying peer");
      ADD_FAILURE() << "no error";
    } catch (const IoError& e) {
      std::string what = e.what();
      EXPECT_EQ(e.peer(), 1) << what;
      EXPECT_TRUE(contains(what, "RDMA_WRITE")) << what;
      EXPECT_TRUE(contains(what, "on QP 0x")) << what;
      EXPECT_TRUE(contains(what, "(status ")) << what;
    }
    EXPECT_LT(Deadline::Clock::now() - start, 20s);
    EXPECT_EQ(pending_recv->state(), Request::State::failed) << "other requests on the peer fail too";
    auto later = t.isend(1, 3, small.data(), small.size());
    EXPECT_EQ(later->state(), Request::State::failed) << "later sends fail at once";
  });
}

// On the bootstrap path nothing tells a receiver that its peer died: it
// sends nothing that could fail. The keep-alive probe does, within about
// keepalive_interval plus the retries (a second), not the caller's deadline.
TEST_F(RdmaErrors, KeepAliveNoticesADeadPeerWeOnlyReceiveFrom) {
  auto options = test::test_options();
  options.keepalive_interval = 200ms;
  auto w = test::make_rdma_world(2, options);
  std::latch connected(2);
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    Bytes small = pattern(8, 1);
    if (rank == 1) {
      test::send(t, 0, 1, small);
      connected.arrive_and_wait();
      std::this_thread::sleep_for(50ms);  // let rank 0 start waiting
      w.ranks[1].reset();
      return;
    }
    EXPECT_EQ(test::recv(t, 1, 1, 8), small);
    connected.arrive_and_wait();
    Bytes inbox(16);
    auto start = Deadline::Clock::now();
    try {
      wait(t, t.irecv(1, 2, inbox.data(), inbox.size()), Deadline::after(60s), "recv from a dead peer");
      ADD_FAILURE() << "no error";
    } catch (const IoError& e) {
      EXPECT_EQ(e.peer(), 1) << e.what();
      EXPECT_TRUE(contains(e.what(), "keep-alive probe")) << e.what();
      EXPECT_TRUE(contains(e.what(), "does not answer")) << e.what();
    }
    EXPECT_LT(Deadline::Clock::now() - start, 15s);
    EXPECT_GE(rdma_stats(t)->keepalive_probes, 1u);
  });
}

// A live peer that is merely slow answers the probes: nothing fails.
TEST_F(RdmaErrors, KeepAliveLeavesASlowPeerAlone) {
  auto options = test::test_options();
  options.keepalive_interval = 50ms;
  auto w = test::make_rdma_world(2, options);
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    Bytes small = pattern(8, 2);
    if (rank == 1) {
      test::send(t, 0, 1, small);
      std::this_thread::sleep_for(1s);  // no progress() at all: its device still ACKs
      test::send(t, 0, 2, small);
      return;
    }
    EXPECT_EQ(test::recv(t, 1, 1, 8), small);
    EXPECT_EQ(test::recv(t, 1, 2, 8), small);
    EXPECT_GE(rdma_stats(t)->keepalive_probes, 3u);
  });
}

// The peer never looks at us (it does not even run progress): the
// handshake gives up after connect_timeout and says why.
TEST_F(RdmaErrors, PeerThatNeverConnectsTimesOut) {
  auto options = test::test_options();
  options.discovery_interval = 0ms;
  auto w = test::make_rdma_world(2, options, 300ms);
  Transport& t = w.at(0);
  Bytes data(100, 1);
  auto request = t.isend(1, 1, data.data(), data.size());
  try {
    wait(t, request, test::soon(), "send to a silent peer");
    ADD_FAILURE() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(e.peer(), 1);
    EXPECT_TRUE(contains(e.what(), "peer did not connect")) << e.what();
  }
}

// With rdma_cm the survivor hears the peer's disconnect even when it only
// waits to receive.
TEST_F(RdmaErrors, RdmaCmDisconnectFailsAPendingReceive) {
  auto options = test::test_options();
  options.connect = rdma::ConnectMode::rdmacm;
  auto w = test::make_rdma_world(2, options);
  std::latch connected(2);
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    Bytes small = pattern(8, 1);
    if (rank == 1) {
      test::send(t, 0, 1, small);
      connected.arrive_and_wait();
      std::this_thread::sleep_for(50ms);  // let rank 0 start waiting
      w.ranks[1].reset();
      return;
    }
    EXPECT_EQ(test::recv(t, 1, 1, 8), small);
    connected.arrive_and_wait();
    Bytes inbox(16);
    try {
      wait(t, t.irecv(1, 2, inbox.data(), inbox.size()), test::soon(), "recv from a leaving peer");
      ADD_FAILURE() << "no error";
    } catch (const IoError& e) {
      EXPECT_EQ(e.peer(), 1);
      EXPECT_TRUE(contains(e.what(), "disconnected")) << e.what();
    }
  });
}

}  // namespace
}  // namespace rcoll::transport
