// Every collective algorithm, forced, against a serial reference: ranks are
// threads, connected by the transports of transport_kinds(). Inputs are
// small integers, so every result is exact in every dtype and is compared
// bitwise; all ranks must agree bitwise.
//
// "rdma" runs where a device exists (`ctest -L rdma`: the Soft-RoCE guest,
// filter *rdma*), else skips, with a reduced matrix (the guest is emulated,
// 10-50x slower): see world_sizes() and allreduce_cases().
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/half_float.hpp"
#include "rcoll/errors.hpp"
#include "support/collective_job.hpp"
#include "support/missing_rank.hpp"
#include "support/run_ranks.hpp"
#include "support/transport_fixture.hpp"
#include "tuning/catalog.hpp"
#include "tuning/planner.hpp"

namespace rcoll::collectives {
namespace {

using namespace std::chrono_literals;
using test::Job;
using test::kOps;
using test::kTypes;
using test::make_input;
using test::reduced;
using test::reference;
using test::store;
using test::transport_kinds;
using test::worlds;
using test::worlds_and;
using test::WorldParam;

// The schedules of the catalog, as the communicator runs them.
void allreduce(const Context& ctx, AllreduceAlgo algo, const void* send, void* recv, std::size_t count,
               DataType type, ReduceOp op) {
  tuning::find_algorithm(algo).run(ctx, send, recv, count, type, op);
}
void bcast(const Context& ctx, BcastAlgo algo, void* buf, std::size_t bytes, int root) {
  tuning::find_algorithm(algo).run(ctx, buf, bytes, root);
}

// ------------------------------------------------------------ allreduce

struct AllreduceCase {
  DataType type;
  ReduceOp op;
  std::size_t count;
  bool in_place;
  std::size_t segment_bytes;
};

// Full cross product at counts 0, 1, 3 (fewer elements than ranks) and 1001
// (odd, many 64-byte segments); a long vector with 256-byte segments for a
// few types. Reduced: every type and op at 1001 (256-byte segments); every
// type in place; 0, 1, 3 for two; long odd vectors in segments above the
// RDMA eager limit (8 KiB), sent in several 64 KiB rendezvous writes.
std::vector<AllreduceCase> allreduce_cases(const std::string& kind) {
  std::vector<AllreduceCase> cases;
  if (reduced(kind)) {
    for (DataType type : kTypes) {
      for (ReduceOp op : kOps) cases.push_back({type, op, 1001, false, 256});
      cases.push_back({type, ReduceOp::sum, 1001, true, 256});
    }
    for (std::size_t count : {0, 1, 3})
      for (bool in_place : {false, true}) {
        cases.push_back({DataType::int32, ReduceOp::sum, count, in_place, 256});
        cases.push_back({DataType::float16, ReduceOp::max, count, in_place, 256});
      }
    cases.push_back({DataType::float32, ReduceOp::sum, 262147, false, 64 << 10});
    cases.push_back({DataType::int64, ReduceOp::max, 65537, true, 128 << 10});
    cases.push_back({DataType::bfloat16, ReduceOp::prod, 100001, true, 32 << 10});
    return cases;
  }
  for (DataType type : kTypes)
    for (ReduceOp op : kOps)
      for (std::size_t count : {0, 1, 3, 1001})
        for (bool in_place : {false, true}) cases.push_back({type, op, count, in_place, 64});
  for (DataType type : {DataType::int8, DataType::float16, DataType::float32, DataType::float64})
    for (bool in_place : {false, true}) cases.push_back({type, ReduceOp::sum, 20000, in_place, 256});
  return cases;
}

std::string describe(const AllreduceCase& c) {
  return std::string(to_string(c.type)) + " " + std::string(to_string(c.op)) + " count " + std::to_string(c.count) +
         (c.in_place ? " in place" : " out of place");
}

// Runs one case on one rank; returns an error description or "".
std::string run_allreduce_case(const Job& job, int rank, std::uint64_t call, AllreduceAlgo algo,
                               const AllreduceCase& c) {
  const std::vector<std::byte> input = make_input(rank, c.count, c.type, c.op);
  std::vector<std::byte> recv(input.size(), std::byte{0xab});
  const void* send = input.data();
  if (c.in_place) {
    recv = input;
    send = recv.data();
  }
  const std::string label = "allreduce #" + std::to_string(call);
  allreduce(job.context(rank, call, label, c.segment_bytes), algo, send, recv.data(), c.count, c.type, c.op);
  if (recv != reference(job.size(), c.count, c.type, c.op)) return "rank " + std::to_string(rank) + ": wrong result";
  if (!c.in_place && input != make_input(rank, c.count, c.type, c.op))
    return "rank " + std::to_string(rank) + ": send buffer modified";
  return {};
}

using AllreduceParam = std::tuple<std::string, int, AllreduceAlgo>;

class AllreduceTest : public test::OnBackend<AllreduceParam> {};

TEST_P(AllreduceTest, MatchesSerialReferenceForEveryTypeOpCountAndPlacement) {
  const auto& [kind, size, algo] = GetParam();
  Job job(kind, size);
  std::vector<AllreduceCase> cases = allreduce_cases(kind);
  // Where the transport has an eager limit E: chunks of 1.5 E + 4 bytes
  // in pieces of at most E, as the plan cuts them (two eager halves), and
  // in pieces above E (one rendezvous piece).
  const std::size_t eager = job.eager_limit();
  if (eager <= (std::size_t{1} << 20) && size > 1) {
    const std::size_t chunk = (eager + eager / 2) / 4 + 1;
    for (std::size_t segment : {eager, 4 * eager})
      for (bool in_place : {false, true})
        cases.push_back({DataType::float32, ReduceOp::sum, chunk * static_cast<std::size_t>(size), in_place, segment});
  }
  test::run_cases(
      job, cases.size(), [&](int rank, std::size_t i) { return run_allreduce_case(job, rank, i, algo, cases[i]); },
      [&](std::size_t i) { return describe(cases[i]); });
}

// Non-integer floats: results are inexact, but every rank must hold bitwise
// the same result, and so must a second run on the same inputs.
void store_float(DataType type, void* base, std::size_t i, double v) {
  auto put = [&](auto value) { std::memcpy(static_cast<std::byte*>(base) + i * sizeof(value), &value, sizeof(value)); };
  switch (type) {
    case DataType::float16: return put(float_to_half(static_cast<float>(v)));
    case DataType::bfloat16: return put(float_to_bfloat16(static_cast<float>(v)));
    case DataType::float32: return put(static_cast<float>(v));
    default: return put(v);
  }
}

TEST_P(AllreduceTest, FloatResultsAreBitwiseIdenticalOnAllRanksAndRuns) {
  const auto& [kind, size, algo] = GetParam();
  Job job(kind, size);
  constexpr std::size_t count = 777;
  const DataType types[] = {DataType::float32, DataType::float64, DataType::float16, DataType::bfloat16};
  struct Run {
    DataType type;
    ReduceOp op;
    int repetition;
  };
  std::vector<Run> runs;
  for (int repetition = 0; repetition < 2; ++repetition)
    for (DataType type : types)
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod}) runs.push_back({type, op, repetition});
  std::vector<std::vector<std::vector<std::byte>>> results(runs.size(), std::vector<std::vector<std::byte>>(size));
  test::run_ranks(size, [&](int rank) {
    for (std::size_t call = 0; call < runs.size(); ++call) {
      const Run& run = runs[call];
      std::mt19937 rng(static_cast<unsigned>(rank * 100 + static_cast<int>(run.type)));
      std::uniform_real_distribution<double> dist(-1.0, 1.0);
      std::vector<std::byte> buf(count * dtype_size(run.type));
      for (std::size_t i = 0; i < count; ++i)
        store_float(run.type, buf.data(), i, run.op == ReduceOp::sum ? dist(rng) * 1000 / 3 : 1 + dist(rng) / 7);
      const std::string label = "allreduce #" + std::to_string(call);
      allreduce(job.context(rank, call, label), algo, buf.data(), buf.data(), count, run.type, run.op);
      results[call][rank] = std::move(buf);
    }
  });
  for (std::size_t call = 0; call < runs.size(); ++call) {
    for (int rank = 1; rank < size; ++rank)
      EXPECT_TRUE(results[call][rank] == results[call][0])
          << to_string(runs[call].type) << " " << to_string(runs[call].op) << ": rank " << rank << " differs from rank 0";
    if (runs[call].repetition == 1) {
      EXPECT_TRUE(results[call][0] == results[call - runs.size() / 2][0])
          << to_string(runs[call].type) << " " << to_string(runs[call].op) << ": second run differs";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, AllreduceTest,
                         ::testing::ValuesIn(worlds_and(tuning::allreduce_collective().algorithms)),
                         test::world_algo_name<AllreduceParam>);

// ------------------------------------------------------------ bcast

std::vector<std::byte> pattern(int root, std::size_t bytes) {
  std::vector<std::byte> buf(bytes);
  for (std::size_t j = 0; j < bytes; ++j) buf[j] = static_cast<std::byte>((j * 131 + static_cast<std::size_t>(root) * 17 + 1) & 0xff);
  return buf;
}

using BcastParam = std::tuple<std::string, int, BcastAlgo>;

class BcastTest : public test::OnBackend<BcastParam> {};

TEST_P(BcastTest, DeliversTheRootsBytesToEveryRankFromEveryRoot) {
  const auto& [kind, size, algo] = GetParam();
  Job job(kind, size);
  struct Case {
    int root;
    std::size_t bytes;
    std::size_t segment_bytes;
  };
  std::vector<Case> cases;
  const bool slow = reduced(kind);  // larger segments; the largest case by rendezvous
  // Where the transport has an eager limit E: a message of 1.5 E + 1 in
  // pieces of at most E, as the plan cuts it (two eager halves).
  const std::size_t eager = job.eager_limit();
  const bool halves = eager <= (std::size_t{1} << 20);
  for (int root = 0; root < size; ++root) {
    for (std::size_t bytes : {0, 1, 3, 1001}) cases.push_back({root, bytes, slow ? 256u : 64u});
    cases.push_back(slow ? Case{root, 300007, 64 << 10} : Case{root, 20000, 256});
    if (halves) cases.push_back({root, eager + eager / 2 + 1, eager});
  }
  std::vector<std::vector<int>> wrong(cases.size(), std::vector<int>(size, 0));
  test::run_ranks(size, [&](int rank) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      std::vector<std::byte> buf = rank == c.root ? pattern(c.root, c.bytes) : std::vector<std::byte>(c.bytes, std::byte{0xcd});
      const std::string label = "bcast #" + std::to_string(i);
      bcast(job.context(rank, i, label, c.segment_bytes), algo, buf.data(), c.bytes, c.root);
      wrong[i][rank] = buf != pattern(c.root, c.bytes);
    }
  });
  for (std::size_t i = 0; i < cases.size(); ++i)
    for (int rank = 0; rank < size; ++rank)
      EXPECT_EQ(wrong[i][rank], 0) << "root " << cases[i].root << " bytes " << cases[i].bytes << ": rank " << rank;
}

INSTANTIATE_TEST_SUITE_P(All, BcastTest,
                         ::testing::ValuesIn(worlds_and(tuning::bcast_collective().algorithms)),
                         test::world_algo_name<BcastParam>);

// ------------------------------------------------------------ barrier

class BarrierTest : public test::OnBackend<WorldParam> {};

// In round k rank k mod n arrives late; nobody may leave before it arrived.
TEST_P(BarrierTest, NoRankLeavesBeforeEveryRankArrived) {
  const auto& [kind, size] = GetParam();
  Job job(kind, size);
  constexpr int rounds = 12;
  std::vector<std::atomic<int>> arrived(rounds);
  std::vector<std::vector<int>> seen(rounds, std::vector<int>(size, 0));
  test::run_ranks(size, [&](int rank) {
    for (int k = 0; k < rounds; ++k) {
      if (k % size == rank) std::this_thread::sleep_for(2ms);
      arrived[k].fetch_add(1);
      const std::string label = "barrier #" + std::to_string(k);
      barrier(job.context(rank, static_cast<std::uint64_t>(k), label));
      seen[k][rank] = arrived[k].load();
    }
  });
  for (int k = 0; k < rounds; ++k)
    for (int rank = 0; rank < size; ++rank) EXPECT_EQ(seen[k][rank], size) << "round " << k << " rank " << rank;
}

INSTANTIATE_TEST_SUITE_P(All, BarrierTest, ::testing::ValuesIn(worlds()),
                         [](const ::testing::TestParamInfo<WorldParam>& info) {
                           return std::get<0>(info.param) + "_n" + std::to_string(std::get<1>(info.param));
                         });

// ------------------------------------------------------------ failures

class MissingRankTest : public test::OnBackend<std::string> {};

// Rank 3 of 4 never calls. The others must throw TimeoutError naming the
// call and the algorithm shortly after the deadline, not hang.
void expect_timeouts(const std::string& kind, const std::string& name,
                     const std::function<void(const Context&)>& call) {
  const auto outcomes = test::run_without_last_rank(kind, 4, 300ms, call);
  std::cout << name << ", rank 0: " << outcomes[0].message << "\n";
  test::expect_timeouts(outcomes, name, true);
}

TEST_P(MissingRankTest, AllreduceTimesOut) {
  for (const auto& algo : tuning::allreduce_collective().algorithms) {
    expect_timeouts(GetParam(), "allreduce " + to_string(algo.id), [&](const Context& ctx) {
      std::vector<float> data(1001, 1.0f);
      algo.run(ctx, data.data(), data.data(), data.size(), DataType::float32, ReduceOp::sum);
    });
  }
}

TEST_P(MissingRankTest, BcastFromTheMissingRootTimesOut) {
  for (const auto& algo : tuning::bcast_collective().algorithms) {
    expect_timeouts(GetParam(), "bcast " + to_string(algo.id), [&](const Context& ctx) {
      std::vector<std::byte> data(1001);
      algo.run(ctx, data.data(), data.size(), 3);
    });
  }
}

TEST_P(MissingRankTest, BarrierTimesOut) {
  expect_timeouts(GetParam(), "barrier dissemination", [](const Context& ctx) { barrier(ctx); });
}

INSTANTIATE_TEST_SUITE_P(All, MissingRankTest, ::testing::ValuesIn(transport_kinds()),
                         [](const auto& info) { return info.param; });

// Ranks that cut a pipeline differently (here: different segment sizes, as
// RCOLL_SEGMENT_BYTES set differently per rank would) must get an error,
// never a buffer whose tail silently keeps stale bytes.
class DisagreementTest : public test::OnBackend<std::string> {};

TEST_P(DisagreementTest, RanksThatCutABcastDifferentlyFail) {
  struct Case {
    std::size_t receiver_segment;
    std::string expected;  // in the receiver's error
  };
  // The root cuts 1001 bytes in 16 pieces of 63 or 62 bytes; the receiver
  // in 8 of 126 or 125, or in 32 of 32 or 31.
  for (const Case& c : {Case{128, "expected 126 bytes from rank 0, got 63"}, Case{32, "exceeds receive buffer"}}) {
    Job job(GetParam(), 2);
    std::string receiver_error = "returned without error";
    test::run_ranks(2, [&](int rank) {
      std::vector<std::byte> data(1001, std::byte{1});
      const std::size_t segment = rank == 0 ? 64 : c.receiver_segment;
      try {
        bcast(job.context(rank, 0, "call #0", segment, 2000ms), BcastAlgo::chain, data.data(), data.size(), 0);
      } catch (const IoError& e) {
        if (rank == 1) receiver_error = e.what();
      }
    });
    EXPECT_NE(receiver_error.find(c.expected), std::string::npos) << receiver_error;
    EXPECT_NE(receiver_error.find("rank 1, peer 0: call #0: bcast chain"), std::string::npos) << receiver_error;
  }
}

INSTANTIATE_TEST_SUITE_P(All, DisagreementTest, ::testing::ValuesIn(transport_kinds()),
                         [](const auto& info) { return info.param; });

// ------------------------------------------------------------ the plan

// The plan's choices (algorithm, segment, depth) at sizes where they differ
// run correctly, as the communicator runs them.
TEST(PlannedChoices, ProduceCorrectResults) {
  constexpr int size = 3;
  Job job("tcp", size);
  tuning::PlanInputs inputs;
  inputs.model = {size, tuning::fallback_link_cost(job.capabilities()), 0};
  inputs.eager_limit = job.eager_limit();
  inputs.preferred_segment = job.capabilities().preferred_segment;
  const tuning::Plan plan = tuning::make_plan(inputs);
  const std::size_t counts[] = {1, 3 * job.eager_limit() / 8 + 5, 300000};
  std::vector<std::vector<int>> wrong(std::size(counts), std::vector<int>(size, 0));
  test::run_ranks(size, [&](int rank) {
    for (std::size_t i = 0; i < std::size(counts); ++i) {
      const std::size_t count = counts[i];
      std::vector<std::byte> buf = make_input(rank, count, DataType::int32, ReduceOp::sum);
      const std::string label = "planned #" + std::to_string(i);
      const auto& a = plan.allreduce(count * 4);
      a.algorithm->run(job.context(rank, 2 * i, label, a.segment), buf.data(), buf.data(), count, DataType::int32,
                       ReduceOp::sum);
      std::vector<std::byte> data = rank == 1 ? pattern(1, count) : std::vector<std::byte>(count);
      const auto& b = plan.bcast(count);
      b.algorithm->run(job.context(rank, 2 * i + 1, label, b.segment), data.data(), data.size(), 1);
      wrong[i][rank] = (buf != reference(size, count, DataType::int32, ReduceOp::sum)) + 2 * (data != pattern(1, count));
    }
  });
  for (std::size_t i = 0; i < std::size(counts); ++i)
    for (int rank = 0; rank < size; ++rank) EXPECT_EQ(wrong[i][rank], 0) << "count " << counts[i] << " rank " << rank;
}

}  // namespace
}  // namespace rcoll::collectives
