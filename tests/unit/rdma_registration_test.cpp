// Memory registration of user buffers: a buffer freed and mapped again at
// the same address (or whose pages were dropped or copied-on-write) is never
// served by its stale registration, the cache does hit for an unchanged
// buffer, and application registrations (register_buffer) are used as such.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>

#include "rdma_test_world.hpp"

namespace rcoll::transport {
namespace {

using namespace std::chrono_literals;
using test::Bytes;
using test::pattern;

constexpr std::size_t region = 256 * 1024;  // several chunks: rendezvous

// An anonymous mapping, at `at` if given (MAP_FIXED_NOREPLACE: fails rather
// than clobber anything).
void* map_region(void* at = nullptr) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | (at != nullptr ? MAP_FIXED_NOREPLACE : 0);
  void* p = ::mmap(at, region, PROT_READ | PROT_WRITE, flags, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void fill(void* p, std::uint32_t seed) {
  Bytes data = pattern(region, seed);
  std::memcpy(p, data.data(), region);
}

class RdmaRegistration : public ::testing::Test {
 protected:
  void SetUp() override { RCOLL_REQUIRE_RDMA(); }
};

// How the sender's buffer changes between two sends from the same address.
enum class Change { remap, dontneed, untouched_then_written };

void send_twice_from_one_address(Change change) {
  auto w = test::make_rdma_world(2, test::test_options());
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    if (rank == 1) {
      Bytes first = test::recv(t, 0, 1, region);
      Bytes second = test::recv(t, 0, 2, region);
      Bytes third = test::recv(t, 0, 3, region);
      EXPECT_EQ(first, change == Change::untouched_then_written ? Bytes(region, 0) : pattern(region, 1));
      EXPECT_TRUE(second == pattern(region, 2)) << "the second send carried stale data";
      EXPECT_TRUE(third == pattern(region, 2));
      return;
    }
    void* buf = map_region();
    ASSERT_NE(buf, nullptr);
    if (change != Change::untouched_then_written) fill(buf, 1);
    test::send(t, 1, 1, buf, region);
    if (change == Change::remap) {
      ::munmap(buf, region);
      ASSERT_EQ(map_region(buf), buf) << "could not map again at the same address";
    } else if (change == Change::dontneed) {
      ::madvise(buf, region, MADV_DONTNEED);  // the next touch maps fresh pages
    }
    fill(buf, 2);
    auto before = *rdma_stats(t);
    test::send(t, 1, 2, buf, region);
    auto middle = *rdma_stats(t);
    test::send(t, 1, 3, buf, region);  // unchanged: a validated cache serves it
    auto after = *rdma_stats(t);
    if (before.mr_cache_validated) {
      // (A kernel may give untouched memory real pages when pinning it; then
      // the old registration is still right and nothing is stale.)
      if (change != Change::untouched_then_written) {
        EXPECT_EQ(middle.mr_cache_stale, before.mr_cache_stale + 1) << "stale entry not detected";
      }
      EXPECT_EQ(after.mr_cache_hits, middle.mr_cache_hits + 1) << "unchanged buffer not served from the cache";
      EXPECT_EQ(after.mr_registrations, middle.mr_registrations);
    } else {
      EXPECT_EQ(after.mr_cache_hits, before.mr_cache_hits) << "unvalidated registrations must not be reused";
    }
    ::munmap(buf, region);
  });
}

TEST_F(RdmaRegistration, SendBufferUnmappedAndMappedAgainAtTheSameAddress) {
  send_twice_from_one_address(Change::remap);
}

TEST_F(RdmaRegistration, SendBufferWhosePagesWereDropped) { send_twice_from_one_address(Change::dontneed); }

// A registration of never-written memory may pin the shared zero page;
// writing then gives the buffer new pages.
TEST_F(RdmaRegistration, SendBufferFirstUntouchedThenWritten) {
  send_twice_from_one_address(Change::untouched_then_written);
}

TEST_F(RdmaRegistration, ReceiveBufferUnmappedAndMappedAgain) {
  auto w = test::make_rdma_world(2, test::test_options());
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    if (rank == 0) {
      Bytes a = pattern(region, 5), b = pattern(region, 6);
      test::send(t, 1, 1, a);
      test::send(t, 1, 2, b);
      return;
    }
    void* buf = map_region();
    ASSERT_NE(buf, nullptr);
    auto r1 = t.irecv(0, 1, buf, region);
    wait(t, r1, test::soon(), "first recv");
    EXPECT_EQ(std::memcmp(buf, pattern(region, 5).data(), region), 0);
    ::munmap(buf, region);
    ASSERT_EQ(map_region(buf), buf);
    auto r2 = t.irecv(0, 2, buf, region);
    wait(t, r2, test::soon(), "second recv");
    EXPECT_EQ(std::memcmp(buf, pattern(region, 6).data(), region), 0) << "data went to the old pages";
    ::munmap(buf, region);
  });
}

// A registered buffer is used for every transfer inside it: no new
// registrations however often it is sent from or received into.
TEST_F(RdmaRegistration, ApplicationRegistrationIsUsedForTransfersInside) {
  auto w = test::make_rdma_world(2, test::test_options());
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    Bytes buf(4 * region, 0);
    auto registration = register_buffer(t, buf.data(), buf.size());
    EXPECT_TRUE(registration.active());
    auto before = *rdma_stats(t);
    for (std::uint32_t i = 0; i < 3; ++i) {
      std::size_t offset = i * region;
      if (rank == 0) {
        Bytes data = pattern(region, 10 + i);
        std::memcpy(buf.data() + offset, data.data(), region);
        test::send(t, 1, i, buf.data() + offset, region);
      } else {
        auto r = t.irecv(0, i, buf.data() + offset, region);
        wait(t, r, test::soon(), "recv into registered buffer");
        EXPECT_EQ(std::memcmp(buf.data() + offset, pattern(region, 10 + i).data(), region), 0);
      }
    }
    EXPECT_EQ(rdma_stats(t)->mr_registrations, before.mr_registrations);
  });
}

// Many distinct buffers through a cache of two entries: evictions keep the
// bound, and every transfer is still correct.
TEST_F(RdmaRegistration, BoundedCacheEvictsAndStaysCorrect) {
  auto options = test::test_options();
  options.mr_cache_entries = 2;
  auto w = test::make_rdma_world(2, options);
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    std::vector<Bytes> buffers;
    for (std::uint32_t i = 0; i < 5; ++i) buffers.push_back(pattern(region, 20 + i));
    for (int round = 0; round < 2; ++round)
      for (std::uint32_t i = 0; i < buffers.size(); ++i) {
        if (rank == 0) test::send(t, 1, i, buffers[i]);
        else EXPECT_EQ(test::recv(t, 0, i, region), buffers[i]);
      }
    if (rank == 0 && rdma_stats(t)->mr_cache_validated) {
      EXPECT_GE(rdma_stats(t)->mr_registrations, 10u) << "a cache of 2 cannot hold 5 buffers";
    }
  });
}

}  // namespace
}  // namespace rcoll::transport
