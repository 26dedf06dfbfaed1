// rcoll-bench's --check reference (bench/rcoll-bench/buffers.*): what
// every rank's plan says it must receive must equal what a serial
// simulation of the collective over all ranks' inputs produces (the
// collectives themselves are not run here), every value must be exact in
// every dtype, and the typed buffers must count wrong elements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "rcoll-bench/buffers.hpp"
#include "rcoll-bench/calls.hpp"
#include "rcoll-bench/element.hpp"
#include "rcoll-bench/options.hpp"

namespace rcoll::bench {
namespace {

using Ints = std::vector<std::int64_t>;

constexpr BenchOp kCheckedOps[] = {BenchOp::allreduce, BenchOp::bcast,          BenchOp::reduce,
                                   BenchOp::allgather, BenchOp::reduce_scatter, BenchOp::alltoall,
                                   BenchOp::gather,    BenchOp::scatter};
constexpr ReduceOp kRedops[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max};

// Every rank's buffers as integers (0 where nothing is written: the
// sentinel), built from the plans alone.
struct World {
  std::vector<RankPlan> plans;
  std::vector<Ints> send;
  std::vector<Ints> recv;
};

World make_world(const BenchOptions& o, int n, std::size_t block) {
  World w;
  for (int r = 0; r < n; ++r) {
    RankPlan plan = plan_rank(o, r, n, block);
    // The plan's pieces stay inside its buffers, and a send buffer is all input.
    EXPECT_EQ(extent(plan.send), plan.send_count);
    EXPECT_LE(extent(plan.recv_input), plan.recv_count);
    EXPECT_LE(extent(plan.expected), plan.recv_count);
    w.send.push_back(to_integers(plan.send, plan.send_count, 0));
    w.recv.push_back(to_integers(plan.recv_input, plan.recv_count, 0));
    w.plans.push_back(std::move(plan));
  }
  return w;
}

Ints slice(const Ints& v, std::size_t offset, std::size_t count) {
  EXPECT_LE(offset + count, v.size());
  if (offset + count > v.size()) return Ints(count, -1);
  return Ints(v.begin() + static_cast<std::ptrdiff_t>(offset), v.begin() + static_cast<std::ptrdiff_t>(offset + count));
}

void put(Ints& dst, std::size_t offset, const Ints& values) {
  ASSERT_LE(offset + values.size(), dst.size());
  std::copy(values.begin(), values.end(), dst.begin() + static_cast<std::ptrdiff_t>(offset));
}

std::int64_t fold(ReduceOp op, std::int64_t a, std::int64_t b) {
  switch (op) {
    case ReduceOp::sum: return a + b;
    case ReduceOp::prod: return a * b;
    case ReduceOp::min: return std::min(a, b);
    case ReduceOp::max: return std::max(a, b);
  }
  return a;
}

Ints reduce_all(ReduceOp op, const std::vector<Ints>& inputs) {
  Ints out = inputs.at(0);
  for (std::size_t r = 1; r < inputs.size(); ++r)
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = fold(op, out[i], inputs[r][i]);
  return out;
}

// Runs the collective on the integer buffers the way the public API
// defines it (include/rcoll/comm.hpp), in place where the plan passes
// rcoll::in_place. Returns what every rank's result region holds after:
// recv[r], or for the in-place scatter root its send buffer.
std::vector<Ints> simulate(const BenchOptions& o, World& w, int n, std::size_t b) {
  const auto un = static_cast<std::size_t>(n);
  const auto at = [&](int r) { return b * static_cast<std::size_t>(r); };
  const auto ip = [&](int r) { return w.plans[static_cast<std::size_t>(r)].in_place; };
  const auto& send = w.send;
  auto& recv = w.recv;
  std::vector<Ints> inputs;
  switch (o.op) {
    case BenchOp::allreduce: case BenchOp::reduce: case BenchOp::reduce_scatter: {
      const std::size_t len = o.op == BenchOp::reduce_scatter ? b * un : b;
      for (int r = 0; r < n; ++r) inputs.push_back(slice(ip(r) ? recv[r] : send[r], 0, len));
      const Ints total = reduce_all(o.redop, inputs);
      for (int r = 0; r < n; ++r) {
        if (o.op == BenchOp::allreduce) put(recv[r], 0, total);
        if (o.op == BenchOp::reduce && r == o.root) put(recv[r], 0, total);
        if (o.op == BenchOp::reduce_scatter) put(recv[r], 0, slice(total, at(r), b));
      }
      break;
    }
    case BenchOp::bcast: {
      const Ints data = slice(recv[o.root], 0, b);
      for (int r = 0; r < n; ++r) put(recv[r], 0, data);
      break;
    }
    case BenchOp::allgather: case BenchOp::gather: {
      for (int q = 0; q < n; ++q) inputs.push_back(ip(q) ? slice(recv[q], at(q), b) : slice(send[q], 0, b));
      for (int r = 0; r < n; ++r) {
        if (o.op == BenchOp::gather && r != o.root) continue;
        for (int q = 0; q < n; ++q) put(recv[r], at(q), inputs[q]);
      }
      break;
    }
    case BenchOp::alltoall: {
      std::vector<Ints> out(un);
      for (int r = 0; r < n; ++r) {
        out[r] = Ints(b * un);
        for (int q = 0; q < n; ++q) put(out[r], at(q), slice(send[q], at(r), b));
      }
      for (int r = 0; r < n; ++r) put(recv[r], 0, out[r]);
      break;
    }
    case BenchOp::scatter:
      for (int r = 0; r < n; ++r)
        if (!ip(r)) put(recv[r], 0, slice(send[o.root], at(r), b));
      break;
    case BenchOp::barrier: break;
  }
  std::vector<Ints> results = recv;
  if (o.op == BenchOp::scatter && ip(o.root)) results[o.root] = slice(send[o.root], at(o.root), b);
  return results;
}

// Elements of rank r's result region: what the API says it receives.
std::size_t result_size(const BenchOptions& o, int r, int n, std::size_t b) {
  const std::size_t all = b * static_cast<std::size_t>(n);
  switch (o.op) {
    case BenchOp::allreduce: case BenchOp::bcast: case BenchOp::reduce_scatter: return b;
    case BenchOp::reduce: return r == o.root ? b : 0;
    case BenchOp::allgather: case BenchOp::alltoall: return all;
    case BenchOp::gather: return r == o.root ? all : 0;
    case BenchOp::scatter: return b;
    case BenchOp::barrier: break;
  }
  return 0;
}

std::string describe(const BenchOptions& o, int n, std::size_t b) {
  return std::string(to_string(o.op)) + (o.inplace ? " in place" : "") + " n=" + std::to_string(n) +
         " block=" + std::to_string(b) + " root=" + std::to_string(o.root) + " redop=" +
         std::string(to_string(o.redop)) + " dtype=" + std::string(to_string(o.dtype));
}

void expect_plans_match_simulation(const BenchOptions& o, int n, std::size_t b) {
  SCOPED_TRACE(describe(o, n, b));
  World w = make_world(o, n, b);
  const std::vector<Ints> sent = w.send;
  const std::vector<Ints> results = simulate(o, w, n, b);
  EXPECT_EQ(w.send, sent);  // the simulation never writes a send buffer
  for (int r = 0; r < n; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const RankPlan& plan = w.plans[r];
    const std::size_t size = result_size(o, r, n, b);
    const bool root_scatter_in_place = o.op == BenchOp::scatter && plan.in_place;
    if (root_scatter_in_place) {
      // Its block stays in send, which must come back unchanged.
      EXPECT_TRUE(plan.expected.empty());
      EXPECT_EQ(results[r], slice(sent[r], static_cast<std::size_t>(r) * b, b));
      continue;
    }
    // The expected pieces cover exactly the result region, and match it.
    const Ints expected = to_integers(plan.expected, plan.recv_count, -1);
    EXPECT_EQ(extent(plan.expected), size);
    EXPECT_EQ(std::count(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(size), -1), 0);
    EXPECT_EQ(slice(expected, 0, size), slice(results[r], 0, size));
    EXPECT_EQ(std::count(results[r].begin(), results[r].begin() + static_cast<std::ptrdiff_t>(size), 0), 0)
        << "a result holds the sentinel";
  }
}

std::vector<BenchOptions> variants(BenchOp op, int n) {
  std::vector<BenchOptions> out;
  for (bool inplace : {false, true}) {
    if (inplace && !has_in_place_form(op)) continue;
    for (int root = 0; root < (takes_root(op) ? n : 1); ++root)
      for (ReduceOp redop : kRedops) {
        if (redop != ReduceOp::sum && !takes_redop(op)) continue;
        for (DataType dtype : {DataType::float32, DataType::int8}) {
          BenchOptions o;
          o.op = op;
          o.inplace = inplace;
          o.root = root;
          o.redop = redop;
          o.dtype = dtype;
          out.push_back(o);
        }
      }
  }
  return out;
}

TEST(RcollBenchCheck, EveryRanksExpectedDataEqualsASerialSimulation) {
  for (BenchOp op : kCheckedOps)
    for (int n = 1; n <= 5; ++n)
      for (const BenchOptions& o : variants(op, n))
        for (std::size_t b : {1, 2, 5, 77, 80, 160}) expect_plans_match_simulation(o, n, b);
}

TEST(RcollBenchCheck, InPlaceIsPassedWhereTheCallHasIt) {
  const int n = 3;
  for (BenchOp op : kCheckedOps) {
    if (!has_in_place_form(op)) continue;
    BenchOptions o;
    o.op = op;
    o.inplace = true;
    o.root = 1;
    for (int r = 0; r < n; ++r) {
      const RankPlan plan = plan_rank(o, r, n, 4);
      const bool rooted = op == BenchOp::reduce || op == BenchOp::gather || op == BenchOp::scatter;
      EXPECT_EQ(plan.in_place, !rooted || r == o.root) << to_string(op) << " rank " << r;
      int send = 0, recv = 0;
      const CallBuffers call = call_buffers(plan, op, &send, &recv);
      if (plan.in_place && op == BenchOp::scatter) {
        EXPECT_EQ(call.recv, in_place);
        EXPECT_EQ(call.send, &send);
      } else if (plan.in_place) {
        EXPECT_EQ(call.send, in_place) << to_string(op);
        EXPECT_EQ(call.recv, &recv) << to_string(op);
      } else {
        EXPECT_NE(call.send, in_place);
        EXPECT_NE(call.recv, in_place);
      }
    }
  }
  // Out of place, a rank whose buffer the API ignores passes nullptr.
  BenchOptions o;
  o.op = BenchOp::gather;
  int send = 0, recv = 0;
  EXPECT_EQ(call_buffers(plan_rank(o, 1, 3, 4), o.op, &send, &recv).recv, nullptr);
  o.op = BenchOp::scatter;
  EXPECT_EQ(call_buffers(plan_rank(o, 1, 3, 4), o.op, &send, &recv).send, nullptr);
}

// Every value --check writes or expects is exact in every dtype and never
// the zero sentinel.
TEST(RcollBenchCheck, ValuesAreExactInEveryDtype) {
  for (int d = 0; d <= static_cast<int>(DataType::float64); ++d) {
    const auto type = static_cast<DataType>(d);
    const std::int64_t limit = exact_integer_limit(type);
    for (int n : {1, 2, 3, 5, 8, 64, 200, 1000})
      for (ReduceOp op : kRedops) {
        // Inputs are >= 1, so a sum over more ranks than `limit` cannot be
        // exact (int8 past 127 ranks, bfloat16 past 256).
        if (op == ReduceOp::sum && n > limit) continue;
        for (std::int64_t v : reduction_result(op, type, n)) {
          EXPECT_GE(v, 1);
          EXPECT_LE(v, limit) << to_string(type) << " " << to_string(op) << " n=" << n;
        }
        for (int r = 0; r < n; r += std::max(1, n / 7))
          for (std::int64_t v : reduction_input(op, type, r, n)) EXPECT_GE(v, 1);
      }
    for (int owner = 0; owner < 9; ++owner)
      for (int dest = -1; dest < 9; ++dest)
        for (std::int64_t v : block_period(owner, dest)) {
          EXPECT_GE(v, 1);
          EXPECT_LE(v, std::min<std::int64_t>(limit, 127));
        }
  }
}

// A block in the wrong place must show: blocks of different owners, or of
// one owner for different ranks, differ.
TEST(RcollBenchCheck, BlocksOfDifferentRanksDiffer) {
  for (int a = 0; a < 9; ++a)
    for (int d = -1; d < 9; ++d)
      for (int other = 0; other < 9; ++other) {
        if (other != a) {
          EXPECT_NE(block_period(a, d), block_period(other, d));
        }
        if (other != d) {
          EXPECT_NE(block_period(a, d), block_period(a, other));
        }
      }
}

// The typed side: written inputs plus a correct result count no errors in
// any dtype; one wrong element or one changed send element counts one.
TEST(RcollBenchCheck, TypedBuffersCountWrongAndChangedElements) {
  for (int d = 0; d <= static_cast<int>(DataType::float64); ++d) {
    BenchOptions o;
    o.op = BenchOp::alltoall;
    o.dtype = static_cast<DataType>(d);
    SCOPED_TRACE(std::string(to_string(o.dtype)));
    const std::size_t element = dtype_size(o.dtype);
    const RankPlan plan = plan_rank(o, 1, 3, 90);
    std::vector<std::byte> send(plan.send_count * element), recv(plan.recv_count * element);
    write_inputs(plan, o.dtype, send.data(), recv.data());
    EXPECT_EQ(count_errors(plan, o.dtype, send.data(), recv.data()), plan.recv_count);  // all sentinel
    write_pieces(o.dtype, plan.expected, recv.data());
    EXPECT_EQ(count_errors(plan, o.dtype, send.data(), recv.data()), 0u);
    std::memset(recv.data() + 100 * element, 0, element);
    EXPECT_EQ(count_errors(plan, o.dtype, send.data(), recv.data()), 1u);
    std::memset(send.data() + 7 * element, 0, element);
    EXPECT_EQ(count_errors(plan, o.dtype, send.data(), recv.data()), 2u);
  }
}

TEST(RcollBenchCheck, InPlaceReduceScatterChecksOnlyTheResultBlock) {
  BenchOptions o;
  o.op = BenchOp::reduce_scatter;
  o.inplace = true;
  const RankPlan plan = plan_rank(o, 2, 4, 10);
  EXPECT_EQ(plan.send_count, 0u);
  EXPECT_EQ(plan.recv_count, 40u);
  EXPECT_EQ(extent(plan.recv_input), 40u);
  EXPECT_EQ(extent(plan.expected), 10u);
}

}  // namespace
}  // namespace rcoll::bench
