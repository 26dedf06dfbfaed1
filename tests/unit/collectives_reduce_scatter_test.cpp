// reduce_scatter and reduce_scatter_v: every algorithm of the catalog,
// forced, against the serial reference (the allreduce reference restricted
// to the rank's block), on every transport and world size 1..8, every
// dtype and op, counts 0, 1, 3 and 1001 per block (many 64-byte segments),
// v layouts with zero counts, in place and out of place. Guard bytes around
// every receive buffer must stay untouched and send buffers unchanged out
// of place. "rdma" runs a reduced matrix (collective_job.hpp).
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "collectives/collectives.hpp"
#include "support/collective_job.hpp"
#include "support/guarded_buffer.hpp"
#include "support/missing_rank.hpp"
#include "support/run_ranks.hpp"
#include "tuning/catalog.hpp"

namespace rcoll::collectives {
namespace {

using test::GuardedBuffer;
using test::Job;
using test::make_input;
using test::reduced;
using test::reference;

struct Case {
  DataType type;
  ReduceOp op;
  std::vector<std::size_t> counts;  // per rank
  bool v;                           // counts/displs given (else uniform blocks)
  bool in_place;
  std::size_t segment_bytes;
};

std::string describe(const Case& c) {
  std::string counts;
  for (std::size_t k : c.counts) counts += (counts.empty() ? "" : ",") + std::to_string(k);
  return std::string(to_string(c.type)) + " " + std::string(to_string(c.op)) + (c.v ? " counts " : " each ") +
         counts + (c.in_place ? " in place" : " out of place");
}

// Some zero counts, the rest different: every rank, the first, the last
// and alternate ranks empty in turn.
std::vector<std::vector<std::size_t>> v_layouts(int size) {
  std::vector<std::vector<std::size_t>> layouts(4, std::vector<std::size_t>(static_cast<std::size_t>(size)));
  for (int r = 0; r < size; ++r) {
    const auto i = static_cast<std::size_t>(r);
    layouts[0][i] = r % 3 == 1 ? 0 : 37 + 50 * i;
    layouts[1][i] = r == size - 1 ? 300 : 0;
    layouts[2][i] = r % 2 == 0 ? 0 : 1;
    layouts[3][i] = r == 0 ? 0 : 3 + i;
  }
  return layouts;
}

std::vector<Case> cases(const std::string& kind, int size, bool v) {
  const auto n = static_cast<std::size_t>(size);
  std::vector<Case> out;
  auto add = [&](DataType t, ReduceOp op, std::vector<std::size_t> counts, bool in_place, std::size_t segment) {
    out.push_back({t, op, std::move(counts), v, in_place, segment});
  };
  const std::size_t segment = reduced(kind) ? 256 : 64;
  if (reduced(kind)) {
    for (DataType t : test::kTypes) add(t, ReduceOp::sum, std::vector<std::size_t>(n, 1001), t == DataType::int8, 256);
    for (ReduceOp op : test::kOps)
      add(DataType::int32, op, std::vector<std::size_t>(n, 1001), op == ReduceOp::min, 256);
    for (std::size_t each : {0, 1, 3})
      for (bool in_place : {false, true})
        add(DataType::float16, ReduceOp::max, std::vector<std::size_t>(n, each), in_place, 256);
    add(DataType::float32, ReduceOp::sum, std::vector<std::size_t>(n, 20011), false, 16 << 10);
  } else {
    for (DataType t : test::kTypes)
      for (ReduceOp op : test::kOps)
        for (std::size_t each : {0, 1, 3, 1001})
          for (bool in_place : {false, true}) add(t, op, std::vector<std::size_t>(n, each), in_place, segment);
    for (bool in_place : {false, true})
      add(DataType::float64, ReduceOp::sum, std::vector<std::size_t>(n, 5003), in_place, 256);
  }
  if (v)
    for (const auto& layout : v_layouts(size))
      for (bool in_place : {false, true}) {
        add(DataType::int32, ReduceOp::sum, layout, in_place, segment);
        add(DataType::bfloat16, ReduceOp::prod, layout, in_place, segment);
      }
  return out;
}

// Runs one case on one rank; returns an error description or "".
std::string run_case(const Job& job, int rank, std::uint64_t call, ReduceScatterAlgo algo,
                     const tuning::Collective<tuning::ReduceScatterAlgorithm>& collective, const Case& c) {
  const int n = job.size();
  const std::size_t unit = dtype_size(c.type);
  std::vector<std::size_t> displs(c.counts.size());
  std::exclusive_scan(c.counts.begin(), c.counts.end(), displs.begin(), std::size_t{0});
  const Blocks blocks =
      c.v ? Blocks{0, c.counts.data(), displs.data(), unit} : Blocks{c.counts[0], nullptr, nullptr, unit};
  const std::size_t total = std::accumulate(c.counts.begin(), c.counts.end(), std::size_t{0});
  const std::vector<std::byte> input = make_input(rank, total, c.type, c.op);
  const std::size_t mine = blocks.bytes(rank);
  GuardedBuffer recv = c.in_place ? GuardedBuffer(input) : GuardedBuffer(mine);
  const void* send = c.in_place ? static_cast<const void*>(recv.data()) : input.data();
  const std::string label = "reduce_scatter #" + std::to_string(call);
  tuning::find_algorithm(collective, algo).run(job.context(rank, call, label, c.segment_bytes), send, recv.data(),
                                              blocks, c.type, c.op);
  const std::vector<std::byte> all = reference(n, total, c.type, c.op);
  const auto first = all.begin() + static_cast<std::ptrdiff_t>(blocks.offset(rank));
  const std::vector<std::byte> expected(first, first + static_cast<std::ptrdiff_t>(mine));
  const std::string who = "rank " + std::to_string(rank) + ": ";
  if (recv.head(mine) != expected) return who + "wrong result";
  if (!recv.intact()) return who + "guard bytes overwritten";
  if (!c.in_place && input != make_input(rank, total, c.type, c.op)) return who + "send buffer modified";
  return {};
}

using Param = std::tuple<std::string, int, ReduceScatterAlgo>;

void run_all(const Param& param, const tuning::Collective<tuning::ReduceScatterAlgorithm>& collective, bool v) {
  const auto& [kind, size, algo] = param;
  Job job(kind, size);
  std::vector<Case> all = cases(kind, size, v);
  // Where the transport has an eager limit E: blocks of 1.5 E + 4 bytes in
  // pieces of at most E (two eager halves) and above E (rendezvous).
  const std::size_t eager = job.eager_limit();
  if (eager <= (std::size_t{1} << 20) && size > 1)
    for (std::size_t segment : {eager, 4 * eager})
      for (bool in_place : {false, true})
        all.push_back({DataType::float32, ReduceOp::sum, std::vector<std::size_t>(static_cast<std::size_t>(size),
                                                                                   (eager + eager / 2) / 4 + 1),
                       v, in_place, segment});
  test::run_cases(
      job, all.size(), [&](int rank, std::size_t i) { return run_case(job, rank, i, algo, collective, all[i]); },
      [&](std::size_t i) { return describe(all[i]); });
}

class ReduceScatterTest : public test::OnBackend<Param> {};

TEST_P(ReduceScatterTest, MatchesSerialReferenceForEveryTypeOpCountAndPlacement) {
  run_all(GetParam(), tuning::reduce_scatter_collective(), false);
}

INSTANTIATE_TEST_SUITE_P(All, ReduceScatterTest,
                         ::testing::ValuesIn(test::worlds_and(tuning::reduce_scatter_collective().algorithms)),
                         test::world_algo_name<Param>);

class ReduceScatterVTest : public test::OnBackend<Param> {};

TEST_P(ReduceScatterVTest, MatchesSerialReferenceWithZeroAndUnequalCounts) {
  run_all(GetParam(), tuning::reduce_scatter_v_collective(), true);
}

INSTANTIATE_TEST_SUITE_P(All, ReduceScatterVTest,
                         ::testing::ValuesIn(test::worlds_and(tuning::reduce_scatter_v_collective().algorithms)),
                         test::world_algo_name<Param>);

// ------------------------------------------------------------ a late rank

// Out of place the ring recycles its partial-sum slots once their sends
// complete; with a right neighbour that comes late every rank runs a chunk
// ahead and then waits on its slots. Blocks of 256 KiB in 4 KiB pieces
// (64 per chunk), one and eight pieces in flight, rank 1 late by 200 ms.
TEST(ReduceScatterRing, OutOfPlaceSlotsWaitForALateNeighbour) {
  constexpr int size = 4;
  constexpr std::size_t each = 64 << 10;  // float32 elements per block
  const Blocks blocks{each, nullptr, nullptr, 4};
  Job job("tcp", size);
  std::vector<std::vector<int>> wrong(2, std::vector<int>(size, 0));
  test::run_ranks(size, [&](int rank) {
    for (std::uint64_t call = 0; call < 2; ++call) {
      const std::vector<std::byte> input = make_input(rank, size * each, DataType::float32, ReduceOp::sum);
      GuardedBuffer recv(each * 4);
      if (rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const std::string label = "reduce_scatter #" + std::to_string(call);
      tuning::find_algorithm(tuning::reduce_scatter_collective(), ReduceScatterAlgo::ring)
          .run(job.context(rank, call, label, 4 << 10), input.data(), recv.data(), blocks, DataType::float32,
               ReduceOp::sum);
      const std::vector<std::byte> all = reference(size, size * each, DataType::float32, ReduceOp::sum);
      const auto first = all.begin() + static_cast<std::ptrdiff_t>(blocks.offset(rank));
      const std::vector<std::byte> expected(first, first + static_cast<std::ptrdiff_t>(each * 4));
      wrong[call][rank] = recv.head(each * 4) != expected || !recv.intact();
    }
  });
  for (int call = 0; call < 2; ++call)
    for (int rank = 0; rank < size; ++rank) EXPECT_EQ(wrong[call][rank], 0) << "call " << call << " rank " << rank;
}

// ------------------------------------------------------------ a missing rank

using namespace std::chrono_literals;

// Rank 3 of 4 never calls. The others must throw TimeoutError naming the call
// and the algorithm shortly after the deadline; none may hang.
class MissingRankTest : public test::OnBackend<std::string> {};

TEST_P(MissingRankTest, ReduceScatterTimesOut) {
  for (const auto& algo : tuning::reduce_scatter_collective().algorithms) {
    const Blocks blocks{1001, nullptr, nullptr, 4};
    const auto outcomes = test::run_without_last_rank(GetParam(), 4, 300ms, [&](const Context& ctx) {
      std::vector<float> data(4 * 1001, 1.0f);
      algo.run(ctx, data.data(), data.data(), blocks, DataType::float32, ReduceOp::sum);
    });
    test::expect_timeouts(outcomes, "reduce_scatter " + std::string(to_string(algo.id)), true);
  }
}

INSTANTIATE_TEST_SUITE_P(All, MissingRankTest, ::testing::ValuesIn(test::transport_kinds()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace rcoll::collectives
