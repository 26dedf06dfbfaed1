// What one call may cost in memory: a pipeline's bookkeeping is bounded by
// its depth, not by its segment count (a list entry per segment let one
// huge allreduce grow a rank to 8.6 GiB); segments below the minimum are
// refused, naming the variable; and running out of memory is an
// rcoll::Error (ResourceError), never a std::bad_alloc.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collectives/requests.hpp"
#include "comm/comm_impl.hpp"
#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CommMemory, ASegmentBelowTheMinimumIsRefusedNamingTheSetting) {
  Options base;
  base.timeout = 10s;
  try {
    test::run_comm_ranks("inproc", 2, base, [](Comm&) { ADD_FAILURE() << "created with a 1-byte segment"; },
                         [](Options& o) { o.segment_bytes = 1; });
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_TRUE(contains(e.what(), "segment_bytes (RCOLL_SEGMENT_BYTES) 1 is below the minimum of 4096 bytes"))
        << e.what();
  }
}

// Every pipelined schedule with thousands of 4 KiB segments over three
// ranks: the receive slots one window holds stay within the pipeline's
// depth per upstream link (two links at most: the tree's root has two
// children with three ranks), where they used to be one per segment.
struct Pipelined {
  const char* name;
  AllreduceAlgo allreduce = AllreduceAlgo::automatic;  // automatic: this case is a bcast
  BcastAlgo bcast = BcastAlgo::automatic;
};

class PipelineBookkeeping : public ::testing::TestWithParam<Pipelined> {};

TEST_P(PipelineBookkeeping, StaysWithinTheDepthWhateverTheSegmentCount) {
  const Pipelined algo = GetParam();
  constexpr std::size_t count = std::size_t{2} << 20;  // 8 MiB of float32: 2048 segments of 4 KiB
  Options base;
  base.timeout = 60s;
  base.segment_bytes = min_segment_bytes;
  base.allreduce_algo = algo.allreduce;
  base.bcast_algo = algo.bcast;
  test::run_comm_ranks("inproc", 3, base, [&](Comm& comm) {
    std::vector<float> data(count, static_cast<float>(comm.rank() + 1));
    collectives::bookkeeping_peak() = {};
    std::size_t depth = 0;
    if (algo.allreduce != AllreduceAlgo::automatic) {
      depth = comm.impl().plan().allreduce(count * 4).depth;
      comm.allreduce(std::span<float>(data), ReduceOp::sum);
      EXPECT_EQ(data.front(), 6.0f);
      EXPECT_EQ(data.back(), 6.0f);
    } else {
      depth = comm.impl().plan().bcast(count * 4).depth;
      comm.bcast(std::span<float>(data), 2);
      EXPECT_EQ(data.front(), 3.0f);
      EXPECT_EQ(data.back(), 3.0f);
    }
    ASSERT_GE(depth, 1u);
    EXPECT_LE(collectives::bookkeeping_peak().receive_slots, 2 * depth) << "rank " << comm.rank();
  });
}

INSTANTIATE_TEST_SUITE_P(Algorithms, PipelineBookkeeping,
                         ::testing::Values(Pipelined{"ring", AllreduceAlgo::ring},
                                           Pipelined{"tree", AllreduceAlgo::tree},
                                           Pipelined{"binomial", AllreduceAlgo::automatic, BcastAlgo::binomial},
                                           Pipelined{"chain", AllreduceAlgo::automatic, BcastAlgo::chain},
                                           Pipelined{"scatter_allgather", AllreduceAlgo::automatic,
                                                     BcastAlgo::scatter_allgather}),
                         [](const auto& info) { return std::string(info.param.name); });

// Over TCP, pieces above the eager limit (64 KiB) stay pending until the
// receiver posts for them. A bcast root whose child comes late used to
// post all 128 pieces at once; now it keeps at most depth in flight.
TEST(CommMemory, ABcastRootKeepsAtMostDepthSendsPendingForALateChild) {
  constexpr std::size_t bytes = std::size_t{16} << 20;
  Options base;
  base.timeout = 60s;
  base.segment_bytes = 128 << 10;
  base.bcast_algo = BcastAlgo::chain;
  test::run_comm_ranks("tcp", 2, base, [&](Comm& comm) {
    std::vector<std::uint8_t> data(bytes, static_cast<std::uint8_t>(comm.rank() == 0 ? 7 : 0));
    comm.barrier();  // connected
    if (comm.rank() == 1) std::this_thread::sleep_for(300ms);
    collectives::bookkeeping_peak() = {};
    comm.bcast(std::span<std::uint8_t>(data), 0);
    EXPECT_EQ(data.back(), 7);
    if (comm.rank() == 0) {
      EXPECT_LE(collectives::bookkeeping_peak().send_entries, comm.impl().plan().bcast(bytes).depth);
    }
  });
}

// The same for a ring whose right neighbour comes late: rank 0 keeps
// receiving from rank 2 and reducing, and every reduced segment is a
// forward to rank 1. Those used to be posted at once (one pending send
// per segment of a chunk, 64 here); now at most depth are in flight and
// the rest wait as runs of adjacent segments, a few per ring step.
TEST(CommMemory, ARingRankKeepsItsForwardsWithinTheDepthForALateNeighbour) {
  constexpr std::size_t count = std::size_t{6} << 20;  // 24 MiB of float32: 64 segments of 128 KiB per chunk
  constexpr int ranks = 3;
  Options base;
  base.timeout = 60s;
  base.segment_bytes = 128 << 10;
  base.allreduce_algo = AllreduceAlgo::ring;
  test::run_comm_ranks("tcp", ranks, base, [&](Comm& comm) {
    std::vector<float> data(count, static_cast<float>(comm.rank() + 1));
    comm.barrier();  // connected
    if (comm.rank() == 1) std::this_thread::sleep_for(300ms);
    collectives::bookkeeping_peak() = {};
    comm.allreduce(std::span<float>(data), ReduceOp::sum);
    EXPECT_EQ(data.front(), 6.0f);
    EXPECT_EQ(data.back(), 6.0f);
    if (comm.rank() == 0) {
      const std::size_t depth = comm.impl().plan().allreduce(count * 4).depth;
      // depth in flight, and at most two runs (the longer and the shorter
      // segments of a chunk) for each of the 2 (ranks - 1) steps.
      EXPECT_LE(collectives::bookkeeping_peak().send_entries, depth + 4 * (ranks - 1));
    }
  });
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool under_sanitizer = true;
#else
constexpr bool under_sanitizer = false;
#endif

// The address space this process has mapped now (VmSize), in bytes.
rlim_t mapped_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmSize:") {
      rlim_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(1 << 10, '\n');
  }
  return 0;
}

// In a child process whose address space is capped 512 MiB above what it
// has mapped, two ranks run an in-place recursive-doubling allreduce of
// 1 TiB, whose scratch cannot exist (the buffer itself is never touched:
// the scratch comes first). Each rank must get a ResourceError naming the
// call, not a std::bad_alloc.
void run_out_of_memory() {
  const rlimit cap{mapped_bytes() + (rlim_t{512} << 20), RLIM_INFINITY};
  if (cap.rlim_cur <= (rlim_t{512} << 20) || setrlimit(RLIMIT_AS, &cap) != 0) std::_Exit(3);
  Options base;
  base.timeout = 20s;
  base.allreduce_algo = AllreduceAlgo::recursive_doubling;
  int right = 0;
  test::run_comm_ranks("inproc", 2, base, [&](Comm& comm) {
    std::vector<std::uint8_t> small(64);
    try {
      comm.allreduce(small.data(), std::size_t{1} << 40, DataType::int8, ReduceOp::sum);
    } catch (const ResourceError& e) {
      if (contains(e.what(), "allreduce #") && contains(e.what(), "out of memory (std::bad_alloc)")) {
        static std::mutex mutex;
        std::lock_guard lock(mutex);
        ++right;
      }
    } catch (...) {
      std::_Exit(2);  // a std::bad_alloc (or anything else) left the call
    }
  });
  std::_Exit(right == 2 ? 0 : 1);
}

TEST(CommMemoryDeathTest, RunningOutOfMemoryIsAResourceErrorNamingTheCall) {
  if (under_sanitizer) GTEST_SKIP() << "a sanitizer's shadow memory does not live under RLIMIT_AS";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_out_of_memory(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace rcoll
