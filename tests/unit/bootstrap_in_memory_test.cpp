// InMemoryRendezvous: ranks as threads joining, barrier, timeouts. The
// key-value store: store_contract_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "bootstrap/in_memory.hpp"
#include "rcoll/errors.hpp"
#include "support/run_ranks.hpp"

namespace rcoll::bootstrap {
namespace {

using namespace std::chrono_literals;

Deadline soon() { return Deadline::after(10s); }

class InMemoryJoin : public ::testing::TestWithParam<int> {};

TEST_P(InMemoryJoin, EveryRankSeesEveryBlob) {
  const int size = GetParam();
  InMemoryRendezvous rendezvous(size);
  test::run_ranks(size, [&](int rank) {
    auto boot = rendezvous.join(rank, "blob-" + std::to_string(rank), soon());
    EXPECT_EQ(boot->rank(), rank);
    EXPECT_EQ(boot->size(), size);
    ASSERT_EQ(boot->members().size(), static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) {
      EXPECT_EQ(boot->members()[static_cast<std::size_t>(r)].address, "127.0.0.1");
      EXPECT_EQ(boot->members()[static_cast<std::size_t>(r)].blob, "blob-" + std::to_string(r));
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Sizes, InMemoryJoin, ::testing::Range(1, 9));

TEST(InMemoryBootstrap, BarrierSeparatesPhases) {
  const int size = 5;
  InMemoryRendezvous rendezvous(size);
  std::atomic<int> arrived{0};
  test::run_ranks(size, [&](int rank) {
    auto boot = rendezvous.join(rank, "", soon());
    for (int round = 1; round <= 3; ++round) {
      if (rank == round % size) std::this_thread::sleep_for(20ms);  // a late rank each round
      arrived.fetch_add(1);
      boot->barrier(soon());
      EXPECT_GE(arrived.load(), round * size) << "rank " << rank << " left barrier " << round << " early";
      boot->barrier(soon());  // nobody starts the next round before all checked
    }
  });
}

TEST(InMemoryBootstrap, MissingRankTimeoutNamesIt) {
  InMemoryRendezvous rendezvous(3);
  test::run_ranks(2, [&](int rank) {
    try {
      rendezvous.join(rank, "", Deadline::after(200ms));
      ADD_FAILURE() << "join of rank " << rank << " succeeded without rank 2";
    } catch (const TimeoutError& error) {
      EXPECT_EQ(error.waiting_for(), std::vector<int>{2});
      EXPECT_NE(std::string(error.what()).find("never joined: 2"), std::string::npos) << error.what();
    }
  });
}

TEST(InMemoryBootstrap, BarrierTimeoutNamesTheLateRank) {
  InMemoryRendezvous rendezvous(3);
  test::run_ranks(3, [&](int rank) {
    auto boot = rendezvous.join(rank, "", soon());
    if (rank == 2) return;  // never enters the barrier
    try {
      boot->barrier(Deadline::after(150ms));
      ADD_FAILURE() << "barrier completed without rank 2";
    } catch (const TimeoutError& error) {
      EXPECT_EQ(error.waiting_for(), std::vector<int>{2});
    }
  });
}

TEST(InMemoryBootstrap, RejectsBadRanks) {
  InMemoryRendezvous rendezvous(2);
  EXPECT_THROW(rendezvous.join(-1, "", soon()), InvalidArgument);
  EXPECT_THROW(rendezvous.join(2, "", soon()), InvalidArgument);
  EXPECT_THROW(InMemoryRendezvous(0), InvalidArgument);
  test::run_ranks(2, [&](int rank) {
    auto boot = rendezvous.join(rank, "", soon());
    EXPECT_EQ(boot->size(), 2);
  });
  EXPECT_THROW(rendezvous.join(1, "", soon()), InvalidArgument);  // joined twice
}

}  // namespace
}  // namespace rcoll::bootstrap
