// The plan: for every collective and range of message sizes, the algorithm,
// its pipeline segment and depth. Built once per communicator by
// make_plan() (planner.hpp) from facts every rank has, so it is identical
// on every rank; a call then pays one short search.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

#include "tuning/catalog.hpp"
#include "tuning/planner_inputs.hpp"

namespace rcoll::tuning {

template <typename Algorithm>
struct Choice {
  const Algorithm* algorithm = nullptr;
  std::size_t segment = 1;  // bytes per pipeline piece: pieces are at most this, and as even as can be
  std::size_t depth = 1;    // receives posted ahead of the one waited for; 0: not pipelined
  friend bool operator==(const Choice&, const Choice&) = default;
};

template <typename Algorithm>
struct SizeRange {
  std::size_t from;  // first message size (bytes) of the range; it ends where the next one starts
  Choice<Algorithm> choice;
};

// Size ranges in ascending order, the first from 0.
template <typename Algorithm>
class SizeTable {
 public:
  SizeTable() = default;  // no ranges: at() must not be called before one is assigned
  explicit SizeTable(std::vector<SizeRange<Algorithm>> ranges) : ranges_(std::move(ranges)) {}

  const Choice<Algorithm>& at(std::size_t bytes) const {
    auto after = std::upper_bound(ranges_.begin(), ranges_.end(), bytes,
                                  [](std::size_t b, const SizeRange<Algorithm>& r) { return b < r.from; });
    return std::prev(after)->choice;
  }
  const std::vector<SizeRange<Algorithm>>& ranges() const noexcept { return ranges_; }

 private:
  std::vector<SizeRange<Algorithm>> ranges_;
};

using AllreduceChoice = Choice<AllreduceAlgorithm>;
using BcastChoice = Choice<BcastAlgorithm>;

// One size table per collective of the catalog.
struct PlanTables {
  SizeTable<AllreduceAlgorithm> allreduce;
  SizeTable<BcastAlgorithm> bcast;
  SizeTable<ReduceAlgorithm> reduce;
  SizeTable<AllgatherAlgorithm> allgather;
  SizeTable<AllgatherAlgorithm> allgatherv;
  SizeTable<ReduceScatterAlgorithm> reduce_scatter;
  SizeTable<ReduceScatterAlgorithm> reduce_scatter_v;
  SizeTable<AlltoallAlgorithm> alltoall;
  SizeTable<AlltoallAlgorithm> alltoallv;
  SizeTable<GatherAlgorithm> gather;
  SizeTable<GatherAlgorithm> gatherv;
  SizeTable<ScatterAlgorithm> scatter;
  SizeTable<ScatterAlgorithm> scatterv;
};

// Calls f(collective, table) for every collective, in the order the plan
// prints them: the one list make_plan and describe follow.
template <typename Tables, typename F>
void for_each_table(Tables& t, F&& f) {
  f(allreduce_collective(), t.allreduce);
  f(bcast_collective(), t.bcast);
  f(reduce_collective(), t.reduce);
  f(allgather_collective(), t.allgather);
  f(allgatherv_collective(), t.allgatherv);
  f(reduce_scatter_collective(), t.reduce_scatter);
  f(reduce_scatter_v_collective(), t.reduce_scatter_v);
  f(alltoall_collective(), t.alltoall);
  f(alltoallv_collective(), t.alltoallv);
  f(gather_collective(), t.gather);
  f(gatherv_collective(), t.gatherv);
  f(scatter_collective(), t.scatter);
  f(scatterv_collective(), t.scatterv);
}

class Plan {
 public:
  Plan(PlanInputs inputs, PlanTables tables) : inputs_(std::move(inputs)), tables_(std::move(tables)) {}

  const AllreduceChoice& allreduce(std::size_t bytes) const { return tables_.allreduce.at(bytes); }
  const BcastChoice& bcast(std::size_t bytes) const { return tables_.bcast.at(bytes); }
  const PlanTables& tables() const noexcept { return tables_; }

  const PlanInputs& inputs() const noexcept { return inputs_; }
  const SizeTable<AllreduceAlgorithm>& allreduce_table() const noexcept { return tables_.allreduce; }
  const SizeTable<BcastAlgorithm>& bcast_table() const noexcept { return tables_.bcast; }

  // A header with the inputs (link figures and their source, eager limit,
  // segment, shared cores, overrides), then per collective one line per
  // range "from .. to -> algorithm, segment S, depth D"; no final newline.
  std::string describe() const;

 private:
  PlanInputs inputs_;
  PlanTables tables_;
};

// "512 B", "256 KiB", "1.5 MiB": sizes in tables and logs.
std::string human_bytes(std::size_t bytes);

}  // namespace rcoll::tuning
