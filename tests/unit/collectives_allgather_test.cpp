// Every allgather and allgatherv algorithm of the catalog, forced, against
// the reference: each rank's block is a pattern of its rank and the byte's
// index, and every rank must end with every block at its place and the
// guards around the buffer (and the gaps between v blocks) untouched.
// Ranks are threads on the transports of transport_kinds(); "rdma" runs in
// the Soft-RoCE guest only, with fewer cases (collective_job.hpp).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "support/block_cases.hpp"
#include "support/collective_job.hpp"
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
  const int size = job.size();
  std::vector<std::vector<std::string>> errors(cases.size(), std::vector<std::string>(size));
  test::run_ranks(size, [&](int rank) {
    for (std::size_t i = 0; i < cases.size(); ++i) errors[i][rank] = run_case(job, rank, i, run, cases[i]);
  });
  int failures = 0;
  for (std::size_t i = 0; i < cases.size(); ++i)
    for (const std::string& e : errors[i])
      if (!e.empty() && ++failures <= 10) ADD_FAILURE() << describe(cases[i]) << ": " << e;
  EXPECT_EQ(failures, 0);
}

using Param = std::tuple<std::string, int, AllgatherAlgo>;

std::string name(const ::testing::TestParamInfo<Param>& info) {
  return std::get<0>(info.param) + "_n" + std::to_string(std::get<1>(info.param)) + "_" +
         to_string(std::get<2>(info.param));
}

class AllgatherTest : public test::OnBackend<Param> {};

TEST_P(AllgatherTest, EveryRankGetsEveryBlockInPlaceAndGuardsStayUntouched) {
  const auto& [kind, size, algo] = GetParam();
  Job job(kind, size);
  run_cases(job, tuning::find_algorithm(tuning::allgather_collective(), algo).run, uniform_cases(job, kind));
}

INSTANTIATE_TEST_SUITE_P(All, AllgatherTest,
                         ::testing::ValuesIn(test::worlds_and(tuning::allgather_collective().algorithms)), name);

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
                         ::testing::ValuesIn(test::worlds_and(tuning::allgatherv_collective().algorithms)), name);

}  // namespace
}  // namespace rcoll::collectives
