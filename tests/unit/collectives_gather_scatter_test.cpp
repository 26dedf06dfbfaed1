// Every gather(v) and scatter(v) algorithm of the catalog, forced, from
// every root, against the reference: each rank's block is a pattern of its
// rank and the byte's index. Gather: the root ends with every block at its
// place, every other rank's recv is left alone. Scatter: every rank ends
// with its block, the root's send is left alone. Guards around every buffer
// (and the gaps between v blocks) stay untouched. As in MPI, a non-root
// rank of a v-variant is given uniform blocks of its own count
// (collectives.hpp). Ranks are threads on the transports of
// transport_kinds(); "rdma" runs in the Soft-RoCE guest only, with fewer
// cases (collective_job.hpp).
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
  int root;
  Layout layout;
  bool in_place;
};

std::string describe(const Case& c) {
  std::string text = c.layout.v() ? "v blocks of unit " + std::to_string(c.layout.unit)
                                  : std::to_string(c.layout.each) + " x " + std::to_string(c.layout.unit) + " bytes";
  return "root " + std::to_string(c.root) + " " + text + (c.in_place ? " in place" : " out of place");
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

// Every root; 0, 1, 3 and 1001 bytes per rank, 3 elements of 4 bytes and
// half the eager limit + 1 (a subtree of two blocks or more goes by
// rendezvous), or the v layouts (test::v_layout); both placements.
// Reduced: the first and last root.
std::vector<Case> cases(const Job& job, const std::string& kind, int size, bool v) {
  std::vector<Layout> layouts;
  if (v) {
    layouts = {test::v_layout(size, 1), test::v_layout(size, 4)};
  } else {
    for (std::size_t each : {0, 1, 3, 1001}) layouts.push_back(test::uniform_layout(each));
    layouts.push_back(test::uniform_layout(3, 4));
    if (job.eager_limit() <= (std::size_t{1} << 20)) layouts.push_back(test::uniform_layout(job.eager_limit() / 2 + 1));
  }
  std::vector<int> roots;
  for (int root = 0; root < size; ++root)
    if (!test::reduced(kind) || root == 0 || root == size - 1) roots.push_back(root);
  std::vector<Case> all;
  for (int root : roots)
    for (const Layout& layout : layouts)
      for (bool in_place : {false, true}) all.push_back({root, layout, in_place});
  return all;
}

// The Blocks a rank's schedule is given: the layout at the root, else, for
// the v-variants, uniform blocks of its own count.
Layout given_layout(const Case& c, int rank) { return rank == c.root ? c.layout : test::own_layout(c.layout, rank); }

std::string gather_case(const Job& job, int rank, std::uint64_t call, GatherSchedule run, const Case& c) {
  const int n = job.size();
  const Layout mine = given_layout(c, rank);
  const Blocks blocks = mine.blocks();
  const bool root = rank == c.root;
  Guarded recv(root ? c.layout.extent(n) : 16);
  Guarded send(blocks.bytes(rank));
  test::put_block(send.data(), blocks, rank, 0);
  const std::vector<std::byte> send_before = send.all;
  const std::vector<std::byte> recv_before = recv.all;
  const void* from = send.data();
  if (root && c.in_place) {
    test::put_block(recv.data(), blocks, rank, blocks.offset(rank));
    from = recv.data() + blocks.offset(rank);
  }
  run(job.context(rank, call, "gather #" + std::to_string(call)), from, recv.data(), blocks, c.root);
  const std::string wrong = first_difference(recv.all, root ? test::all_blocks(c.layout, n) : recv_before);
  if (!wrong.empty()) return "rank " + std::to_string(rank) + ": recv " + wrong;
  if (send.all != send_before) return "rank " + std::to_string(rank) + ": send buffer modified";
  return {};
}

std::string scatter_case(const Job& job, int rank, std::uint64_t call, ScatterSchedule run, const Case& c) {
  const int n = job.size();
  const Layout mine = given_layout(c, rank);
  const Blocks blocks = mine.blocks();
  const bool root = rank == c.root;
  // The root's send holds every block at its place; elsewhere it is not read.
  Guarded send(root ? c.layout.extent(n) : 16);
  if (root) send.all = test::all_blocks(c.layout, n);
  const std::vector<std::byte> send_before = send.all;
  Guarded recv(blocks.bytes(rank));
  void* into = root && c.in_place ? send.data() + blocks.offset(rank) : recv.data();
  run(job.context(rank, call, "scatter #" + std::to_string(call)), send.data(), into, blocks, c.root);
  Guarded want(blocks.bytes(rank));
  if (!(root && c.in_place)) test::put_block(want.data(), blocks, rank, 0);
  const std::string wrong = first_difference(recv.all, want.all);
  if (!wrong.empty()) return "rank " + std::to_string(rank) + ": recv " + wrong;
  const std::string modified = first_difference(send.all, send_before);
  if (!modified.empty()) return "rank " + std::to_string(rank) + ": send " + modified;
  return {};
}

template <typename Schedule, typename RunCase>
void run_cases(const Job& job, Schedule run, const std::vector<Case>& all, RunCase run_case) {
  test::run_cases(
      job, all.size(), [&](int rank, std::size_t i) { return run_case(job, rank, i, run, all[i]); },
      [&](std::size_t i) { return describe(all[i]); });
}

// ------------------------------------------------------------ gather

using GatherParam = std::tuple<std::string, int, GatherAlgo>;

class GatherTest : public test::OnBackend<GatherParam> {};

TEST_P(GatherTest, TheRootGetsEveryBlockInPlaceFromEveryRoot) {
  const auto& [kind, size, algo] = GetParam();
  Job job(kind, size);
  run_cases(job, tuning::find_algorithm(tuning::gather_collective(), algo).run, cases(job, kind, size, false),
            gather_case);
}

INSTANTIATE_TEST_SUITE_P(All, GatherTest, ::testing::ValuesIn(test::worlds_and(tuning::gather_collective().algorithms)),
                         test::world_algo_name<GatherParam>);

class GathervTest : public test::OnBackend<GatherParam> {};

TEST_P(GathervTest, EmptyBlocksAndGappedReverseDisplacementsFromEveryRoot) {
  const auto& [kind, size, algo] = GetParam();
  Job job(kind, size);
  std::vector<Case> all = cases(job, kind, size, true);
  for (Case& c : cases(job, kind, size, false)) all.push_back(std::move(c));
  run_cases(job, tuning::find_algorithm(tuning::gatherv_collective(), algo).run, all, gather_case);
}

INSTANTIATE_TEST_SUITE_P(All, GathervTest,
                         ::testing::ValuesIn(test::worlds_and(tuning::gatherv_collective().algorithms)),
                         test::world_algo_name<GatherParam>);

// ------------------------------------------------------------ scatter

using ScatterParam = std::tuple<std::string, int, ScatterAlgo>;

class ScatterTest : public test::OnBackend<ScatterParam> {};

TEST_P(ScatterTest, EveryRankGetsItsBlockFromEveryRoot) {
  const auto& [kind, size, algo] = GetParam();
  Job job(kind, size);
  run_cases(job, tuning::find_algorithm(tuning::scatter_collective(), algo).run, cases(job, kind, size, false),
            scatter_case);
}

INSTANTIATE_TEST_SUITE_P(All, ScatterTest,
                         ::testing::ValuesIn(test::worlds_and(tuning::scatter_collective().algorithms)),
                         test::world_algo_name<ScatterParam>);

class ScattervTest : public test::OnBackend<ScatterParam> {};

TEST_P(ScattervTest, EmptyBlocksAndGappedReverseDisplacementsFromEveryRoot) {
  const auto& [kind, size, algo] = GetParam();
  Job job(kind, size);
  std::vector<Case> all = cases(job, kind, size, true);
  for (Case& c : cases(job, kind, size, false)) all.push_back(std::move(c));
  run_cases(job, tuning::find_algorithm(tuning::scatterv_collective(), algo).run, all, scatter_case);
}

INSTANTIATE_TEST_SUITE_P(All, ScattervTest,
                         ::testing::ValuesIn(test::worlds_and(tuning::scatterv_collective().algorithms)),
                         test::world_algo_name<ScatterParam>);

}  // namespace
}  // namespace rcoll::collectives
