// reduce: every algorithm of the catalog, forced, against the serial
// reference, on every transport and world size 1..8: every dtype and op at
// counts 0, 1, 3 and 1001 (many 64-byte segments), the root rotating over
// the ranks, and every root for a few; in place at the root and out of
// place. Guard bytes around every receive buffer must stay untouched, a
// non-root's recv (null in half the cases) is never written, and no send
// buffer changes but the root's in place. "rdma" runs a reduced matrix.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
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
  std::size_t count;
  int root;
  bool in_place;
  std::size_t segment_bytes;
};

std::string describe(const Case& c) {
  return std::string(to_string(c.type)) + " " + std::string(to_string(c.op)) + " count " + std::to_string(c.count) +
         " root " + std::to_string(c.root) + (c.in_place ? " in place" : " out of place");
}

std::vector<Case> cases(const std::string& kind, int size) {
  std::vector<Case> out;
  const std::size_t segment = reduced(kind) ? 256 : 64;
  auto root = [&] { return static_cast<int>(out.size()) % size; };
  auto add = [&](DataType t, ReduceOp op, std::size_t count, bool in_place, std::size_t seg) {
    out.push_back({t, op, count, root(), in_place, seg});
  };
  if (reduced(kind)) {
    for (DataType t : test::kTypes) add(t, ReduceOp::sum, 1001, t == DataType::int8, segment);
    for (ReduceOp op : test::kOps) add(DataType::float16, op, 1001, op == ReduceOp::max, segment);
    for (std::size_t count : {0, 1, 3}) add(DataType::int64, ReduceOp::prod, count, count == 1, segment);
    add(DataType::float32, ReduceOp::sum, 100003, false, 32 << 10);
  } else {
    for (DataType t : test::kTypes)
      for (ReduceOp op : test::kOps)
        for (std::size_t count : {0, 1, 3, 1001})
          for (bool in_place : {false, true}) add(t, op, count, in_place, segment);
    add(DataType::float64, ReduceOp::sum, 20011, false, 256);
  }
  for (int r = 0; r < size; ++r)
    for (std::size_t count : {1, 1001})
      for (bool in_place : {false, true}) out.push_back({DataType::int32, ReduceOp::sum, count, r, in_place, segment});
  return out;
}

// Runs one case on one rank; returns an error description or "".
std::string run_case(const Job& job, int rank, std::uint64_t call, ReduceAlgo algo, const Case& c) {
  const std::vector<std::byte> input = make_input(rank, c.count, c.type, c.op);
  const bool root = rank == c.root;
  const bool in_place = root && c.in_place;
  // A non-root passes null in odd calls, else a buffer that must stay as it was.
  std::optional<GuardedBuffer> recv;
  if (root) recv.emplace(in_place ? GuardedBuffer(input) : GuardedBuffer(input.size()));
  else if (call % 2 == 0) recv.emplace(input.size());
  void* recv_data = recv ? recv->data() : nullptr;
  const void* send = in_place ? recv_data : input.data();
  const std::string label = "reduce #" + std::to_string(call);
  tuning::find_algorithm(tuning::reduce_collective(), algo)
      .run(job.context(rank, call, label, c.segment_bytes), send, recv_data, c.count, c.type, c.op, c.root);
  const std::string who = "rank " + std::to_string(rank) + ": ";
  if (root && recv->head(input.size()) != reference(job.size(), c.count, c.type, c.op)) return who + "wrong result";
  if (!root && recv && recv->head(input.size()) != GuardedBuffer(input.size()).head(input.size()))
    return who + "non-root recv written";
  if (recv && !recv->intact()) return who + "guard bytes overwritten";
  if (!in_place && input != make_input(rank, c.count, c.type, c.op)) return who + "send buffer modified";
  return {};
}

using Param = std::tuple<std::string, int, ReduceAlgo>;

class ReduceTest : public test::OnBackend<Param> {};

TEST_P(ReduceTest, MatchesSerialReferenceForEveryTypeOpCountRootAndPlacement) {
  const auto& [kind, size, algo] = GetParam();
  Job job(kind, size);
  std::vector<Case> all = cases(kind, size);
  // Where the transport has an eager limit E: vectors of 1.5 E + 4 bytes in
  // pieces of at most E (two eager halves) and above E (rendezvous).
  const std::size_t eager = job.eager_limit();
  if (eager <= (std::size_t{1} << 20) && size > 1)
    for (std::size_t segment : {eager, 4 * eager})
      for (bool in_place : {false, true})
        all.push_back({DataType::float32, ReduceOp::sum, (eager + eager / 2) / 4 + 1,
                       static_cast<int>(all.size()) % size, in_place, segment});
  test::run_cases(
      job, all.size(), [&](int rank, std::size_t i) { return run_case(job, rank, i, algo, all[i]); },
      [&](std::size_t i) { return describe(all[i]); });
}

INSTANTIATE_TEST_SUITE_P(All, ReduceTest, ::testing::ValuesIn(test::worlds_and(tuning::reduce_collective().algorithms)),
                         test::world_algo_name<Param>);

// ------------------------------------------------------------ a missing rank

using namespace std::chrono_literals;

// Rank 3 of 4 never calls. The root (rank 0) and every rank that waits on
// rank 3 must throw TimeoutError naming the call
// and the algorithm shortly after the deadline; none may hang.
class MissingRankTest : public test::OnBackend<std::string> {};

TEST_P(MissingRankTest, ReduceToAPresentRootTimesOut) {
  for (const auto& algo : tuning::reduce_collective().algorithms) {
    const auto outcomes = test::run_without_last_rank(GetParam(), 4, 300ms, [&](const Context& ctx) {
      std::vector<float> data(1001, 1.0f);
      algo.run(ctx, data.data(), data.data(), data.size(), DataType::float32, ReduceOp::sum, 0);
    });
    test::expect_timeouts(outcomes, "reduce " + std::string(to_string(algo.id)), false);
  }
}

INSTANTIATE_TEST_SUITE_P(All, MissingRankTest, ::testing::ValuesIn(test::transport_kinds()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace rcoll::collectives
