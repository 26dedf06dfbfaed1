// Every allgather and allgatherv algorithm of the catalog, forced, against
// the reference: each rank's block is a pattern of its rank and the byte's
// index, and every rank must end with every block at its place and the
// guards around the buffer (and the gaps between v blocks) untouched.
// Ranks are threads on the transports of transport_kinds(); "rdma" runs in
// the Soft-RoCE guest only, with fewer cases (collective_job.hpp).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "support/block_cases.hpp"
#include "support/collective_job.hpp"
#include "collectives/requests.hpp"
#include "support/run_ranks.hpp"
#include "tuning/catalog.hpp"

namespace rcoll::collectives {
namespace {

using test::Guarded;
using test::Job;
using test::Layout;

struct Case {
  Layout layout;
  bool in_place;
  std::size_t segment_bytes;  // 0: the Job's default
};

std::string describe(const Case& c) {
  std::string text = c.layout.v() ? "v blocks of unit " + std::to_string(c.layout.unit)
                                  : std::to_string(c.layout.each) + " x " + std::to_string(c.layout.unit) + " bytes";
  return text + (c.in_place ? " in place" : " out of place") + " segment " + std::to_string(c.segment_bytes);
}

std::string first_difference(const std::vector<std::byte>& got, const std::vector<std::byte>& want) {
  if (got.size() != want.size()) return "size " + std::to_string(got.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return "byte " + std::to_string(i) + " of " + std::to_string(got.size()) + " (guard " +
             std::to_string(test::kGuard) + ") is " + std::to_string(static_cast<int>(got[i])) + ", not " +
             std::to_string(static_cast<int>(want[i]));
  return {};
}

// Counts 0, 1, 3 (fewer bytes than ranks), 1001 (odd, many segments), 3
// elements of 4 bytes, and a block of 1.5 eager limits + 1 in pieces of
// the eager limit, both placements; reduced: fewer.
std::vector<Case> uniform_cases(const Job& job, const std::string& kind) {
  std::vector<Case> cases;
  for (bool in_place : {false, true}) {
    for (std::size_t each : {0, 1, 3, 1001}) cases.push_back({test::uniform_layout(each), in_place, 0});
    cases.push_back({test::uniform_layout(3, 4), in_place, 0});
    if (!test::reduced(kind)) cases.push_back({test::uniform_layout(20000), in_place, 256});
    const std::size_t eager = job.eager_limit();
    if (eager <= (std::size_t{1} << 20)) cases.push_back({test::uniform_layout(eager + eager / 2 + 1), in_place, eager});
  }
  return cases;
}

std::vector<Case> v_cases(int size) {
  std::vector<Case> cases;
  for (bool in_place : {false, true})
    for (std::size_t unit : {1, 4}) cases.push_back({test::v_layout(size, unit), in_place, 0});
  return cases;
}

// One case on one rank; returns an error description or "".
std::string run_case(const Job& job, int rank, std::uint64_t call, AllgatherSchedule run, const Case& c) {
  const int n = job.size();
  const Blocks blocks = c.layout.blocks();
  Guarded recv(c.layout.extent(n));
  Guarded send(blocks.bytes(rank));
  test::put_block(send.data(), blocks, rank, 0);
  const std::vector<std::byte> send_before = send.all;
  const void* from = send.data();
  if (c.in_place) {
    test::put_block(recv.data(), blocks, rank, blocks.offset(rank));
    from = recv.data() + blocks.offset(rank);
  }
  run(job.context(rank, call, "allgather #" + std::to_string(call), c.segment_bytes), from, recv.data(), blocks);
  const std::string wrong = first_difference(recv.all, test::all_blocks(c.layout, n));
  if (!wrong.empty()) return "rank " + std::to_string(rank) + ": recv " + wrong;
  if (send.all != send_before) return "rank " + std::to_string(rank) + ": send buffer modified";
  return {};
}

void run_cases(const Job& job, AllgatherSchedule run, const std::vector<Case>& cases) {
  test::run_cases(
      job, cases.size(), [&](int rank, std::size_t i) { return run_case(job, rank, i, run, cases[i]); },
      [&](std::size_t i) { return describe(cases[i]); });
}

using Param = std::tuple<std::string, int, AllgatherAlgo>;

class AllgatherTest : public test::OnBackend<Param> {};

TEST_P(AllgatherTest, EveryRankGetsEveryBlockInPlaceAndGuardsStayUntouched) {
  const auto& [kind, size, algo] = GetParam();
  Job job(kind, size);
  run_cases(job, tuning::find_algorithm(tuning::allgather_collective(), algo).run, uniform_cases(job, kind));
}

INSTANTIATE_TEST_SUITE_P(All, AllgatherTest,
                         ::testing::ValuesIn(test::worlds_and(tuning::allgather_collective().algorithms)),
                         test::world_algo_name<Param>);

class AllgathervTest : public test::OnBackend<Param> {};

TEST_P(AllgathervTest, EmptyBlocksAndGappedReverseDisplacementsAndUniformBlocks) {
  const auto& [kind, size, algo] = GetParam();
  Job job(kind, size);
  std::vector<Case> cases = v_cases(size);
  // A v-variant algorithm runs uniform blocks too.
  for (Case& c : uniform_cases(job, kind)) cases.push_back(std::move(c));
  run_cases(job, tuning::find_algorithm(tuning::allgatherv_collective(), algo).run, cases);
}

INSTANTIATE_TEST_SUITE_P(All, AllgathervTest,
                         ::testing::ValuesIn(test::worlds_and(tuning::allgatherv_collective().algorithms)),
                         test::world_algo_name<Param>);

// Over TCP, pieces above the eager limit stay pending until the receiver
// posts for them. With its right neighbour late, a ring rank keeps depth
// sends in flight and queues the rest as runs (at most two per step: the
// longer and the shorter pieces of a block), and posts depth receives.
TEST(AllgatherRing, KeepsItsBookkeepingWithinTheDepthForALateNeighbour) {
  RCOLL_SKIP_UNLESS_AVAILABLE("tcp");
  constexpr int ranks = 3;
  constexpr std::size_t segment = 128 << 10;
  Job job("tcp", ranks);
  Layout layout{0, 1, {8 << 20, (5 << 20) + 3, 8 << 20}, {(13 << 20) + 3, 0, (5 << 20) + 3}};
  const Blocks blocks = layout.blocks();
  std::vector<std::size_t> sends(ranks), slots(ranks);
  std::vector<std::string> errors(ranks);
  test::run_ranks(ranks, [&](int rank) {
    std::vector<std::byte> recv(layout.extent(ranks));
    std::byte one{1};
    const Layout tiny = test::uniform_layout(1);
    const Blocks tiny_blocks = tiny.blocks();
    allgather_ring(job.context(rank, 0, "connect"), &one, recv.data(), tiny_blocks);  // connected
    test::put_block(recv.data(), blocks, rank, blocks.offset(rank));
    if (rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    bookkeeping_peak() = {};
    allgather_ring(job.context(rank, 2, "allgather", segment), recv.data() + blocks.offset(rank), recv.data(), blocks);
    sends[rank] = bookkeeping_peak().send_entries;
    slots[rank] = bookkeeping_peak().receive_slots;
    for (int r = 0; r < ranks && errors[rank].empty(); ++r)
      for (std::size_t j = 0; j < blocks.bytes(r); j += 4093)
        if (recv[blocks.offset(r) + j] != test::block_byte(r, j)) errors[rank] = "block " + std::to_string(r) + " wrong at " + std::to_string(j) + ": " + std::to_string(int(recv[blocks.offset(r) + j]));
  });
  const std::size_t depth = 8;  // the Job's depth for even calls
  for (int rank = 0; rank < ranks; ++rank) {
    EXPECT_EQ(errors[rank], "") << "rank " << rank;
    EXPECT_LE(slots[rank], depth) << "rank " << rank;
  }
  EXPECT_LE(sends[0], depth + 2 * (ranks - 1));
}

}  // namespace
}  // namespace rcoll::collectives
