// rcoll-bench's command line and how a size maps onto each call
// (bench/rcoll-bench/options.*, layout.*): pure, no communicator.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "rcoll-bench/layout.hpp"
#include "rcoll-bench/options.hpp"

namespace rcoll::bench {
namespace {

constexpr BenchOp kAllOps[] = {BenchOp::allreduce, BenchOp::bcast,          BenchOp::barrier,
                               BenchOp::reduce,    BenchOp::allgather,      BenchOp::reduce_scatter,
                               BenchOp::alltoall,  BenchOp::gather,         BenchOp::scatter};

BenchOptions parse(std::vector<std::string> args) { return parse_options(args); }

// ---- command line ----

TEST(RcollBenchOptions, EveryOpIsAccepted) {
  for (BenchOp op : kAllOps) {
    const std::string name(to_string(op));
    EXPECT_EQ(parse({"--op", name}).op, op) << name;
    EXPECT_EQ(parse({"--op=" + name}).op, op) << name;
  }
  EXPECT_THROW(parse({"--op", "allgatherv"}), UsageError);
  EXPECT_THROW(parse({"--op", "reducescatter"}), UsageError);
}

TEST(RcollBenchOptions, EveryAlgorithmOfEveryOpIsAccepted) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> names = {
      {"allreduce", {"auto", "ring", "tree", "rd"}},
      {"bcast", {"auto", "binomial", "scatter_allgather", "chain"}},
      {"reduce", {"auto", "binomial", "reduce_scatter_gather"}},
      {"allgather", {"auto", "ring", "rd", "bruck"}},
      {"reduce_scatter", {"auto", "ring", "recursive_halving"}},
      {"alltoall", {"auto", "pairwise", "bruck"}},
      {"gather", {"auto", "binomial", "linear"}},
      {"scatter", {"auto", "binomial", "linear"}},
  };
  for (const auto& [op, algos] : names)
    for (const std::string& algo : algos) EXPECT_EQ(parse({"--op", op, "--algo", algo}).algo, algo) << op;
}

TEST(RcollBenchOptions, AnAlgorithmOfAnotherOpIsRejected) {
  const std::vector<std::pair<std::string, std::string>> wrong = {
      {"gather", "ring"},       {"gather", "bruck"},          {"scatter", "chain"},
      {"scatter", "nonsense"},  {"alltoall", "ring"},         {"alltoall", "linear"},
      {"reduce", "ring"},       {"reduce", "tree"},           {"reduce_scatter", "bruck"},
      {"allgather", "pairwise"}, {"allgather", "recursive_doubling"}, {"bcast", "linear"},
      {"allreduce", "recursive_halving"}, {"barrier", "auto"},
  };
  for (const auto& [op, algo] : wrong)
    EXPECT_THROW(parse({"--op", op, "--algo", algo}), UsageError) << op << " " << algo;
}

TEST(RcollBenchOptions, InPlaceIsRejectedForAlltoallOnly) {
  EXPECT_THROW(parse({"--op", "alltoall", "--inplace"}), UsageError);
  EXPECT_THROW(parse({"--inplace", "--op", "alltoall", "--check"}), UsageError);
  for (BenchOp op : kAllOps) {
    if (op == BenchOp::alltoall) continue;
    EXPECT_TRUE(parse({"--op", std::string(to_string(op)), "--inplace"}).inplace) << to_string(op);
  }
  EXPECT_FALSE(has_in_place_form(BenchOp::alltoall));
}

TEST(RcollBenchOptions, OverlapMeasuresAllreduceOnlyAndTakesAPollInterval) {
  BenchOptions options = parse({"--overlap", "--poll-every", "0"});
  EXPECT_TRUE(options.overlap);
  EXPECT_EQ(options.poll_every_us, 0);
  EXPECT_EQ(parse({"--overlap"}).poll_every_us, 10);
  EXPECT_FALSE(parse({}).overlap);
  EXPECT_THROW(parse({"--overlap", "--op", "bcast"}), UsageError);
  EXPECT_THROW(parse({"--overlap", "--poll-every", "-1"}), UsageError);
}

TEST(RcollBenchOptions, RootsRedopsAndVariablesPerOp) {
  for (BenchOp op : kAllOps) {
    const bool rooted = op == BenchOp::bcast || op == BenchOp::reduce || op == BenchOp::gather ||
                        op == BenchOp::scatter;
    const bool reduces = op == BenchOp::allreduce || op == BenchOp::reduce || op == BenchOp::reduce_scatter;
    EXPECT_EQ(takes_root(op), rooted) << to_string(op);
    EXPECT_EQ(takes_redop(op), reduces) << to_string(op);
    if (op == BenchOp::barrier) {
      EXPECT_EQ(algo_variable(op), nullptr);
      continue;
    }
    std::string upper(to_string(op));
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(std::string(algo_variable(op)), "RCOLL_" + upper + "_ALGO");
  }
  const BenchOptions o = parse({"--op", "scatter", "--root", "3", "--redop", "max"});
  EXPECT_EQ(o.root, 3);
  EXPECT_EQ(o.redop, ReduceOp::max);
}

// ---- size layout (nccl-tests conventions) ----

TEST(RcollBenchLayout, VectorOpsCountWholeElements) {
  for (BenchOp op : {BenchOp::allreduce, BenchOp::bcast, BenchOp::reduce}) {
    const SizeLayout l = layout_size(op, 1001, 4, 3);
    EXPECT_EQ(l.block, 250u);
    EXPECT_EQ(l.bytes, 1000u);
    EXPECT_EQ(layout_size(op, 3, 4, 3).block, 0u);  // skipped
    EXPECT_FALSE(splits_into_blocks(op));
  }
}

TEST(RcollBenchLayout, BlockOpsSplitTheSizeIntoRankBlocks) {
  for (BenchOp op : {BenchOp::allgather, BenchOp::reduce_scatter, BenchOp::alltoall, BenchOp::gather,
                     BenchOp::scatter}) {
    EXPECT_TRUE(splits_into_blocks(op));
    SizeLayout l = layout_size(op, 1024, 4, 4);
    EXPECT_EQ(l.block, 64u);
    EXPECT_EQ(l.bytes, 1024u);
    l = layout_size(op, 1000, 4, 3);  // 250 elements: 83 per rank
    EXPECT_EQ(l.block, 83u);
    EXPECT_EQ(l.bytes, 996u);
    EXPECT_EQ(layout_size(op, 12, 4, 4).block, 0u);  // 3 elements, fewer than one per rank: skipped
    EXPECT_EQ(layout_size(op, 16, 4, 4).block, 1u);
    EXPECT_EQ(layout_size(op, 8, 8, 1).block, 1u);
  }
  EXPECT_EQ(layout_size(BenchOp::barrier, 4096, 4, 4).bytes, 0u);
}

TEST(RcollBenchLayout, BusFactors) {
  EXPECT_DOUBLE_EQ(bus_factor(BenchOp::allreduce, 4), 1.5);
  for (BenchOp op : {BenchOp::allgather, BenchOp::reduce_scatter, BenchOp::alltoall}) {
    EXPECT_DOUBLE_EQ(bus_factor(op, 4), 0.75);
    EXPECT_DOUBLE_EQ(bus_factor(op, 1), 0.0);
  }
  for (BenchOp op : {BenchOp::bcast, BenchOp::reduce, BenchOp::gather, BenchOp::scatter})
    EXPECT_DOUBLE_EQ(bus_factor(op, 5), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(BenchOp::barrier, 4), 0.0);
}

}  // namespace
}  // namespace rcoll::bench
