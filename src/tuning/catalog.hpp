// The algorithms the plan chooses among: one table per collective. An
// entry names the schedule that runs it (collectives/), its cost under the
// model (costs.hpp), how many receives it posts ahead of the one it waits
// for (its pipeline depth; 0 for one that sends whole messages), and what
// one of its link messages carries.
//
// Adding an algorithm is: its schedule file, its cost function, and one
// entry here (docs/ARCHITECTURE.md, "Adding an algorithm"). The plan, the
// overrides (RCOLL_*_ALGO, rcoll-bench --algo), the printed plan and the
// forced-algorithm tests all read these tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "collectives/algorithms.hpp"
#include "rcoll/options.hpp"
#include "tuning/costs.hpp"
#include "tuning/planner_inputs.hpp"

namespace rcoll::tuning {

// What one message over one link carries: the whole message (recursive
// doubling, the tree allreduce), the whole message forwarded along a tree
// or chain (on two ranks one edge from the root to a leaf, with nothing to
// pipeline), or a 1/n share of it (rings). The segment rule (planner.hpp)
// looks at it.
enum class LinkMessage : std::uint8_t { whole, forwarded, share };

template <typename Id, typename Schedule>
struct Algorithm {
  Id id;
  Schedule run;
  CostFunction cost;
  std::size_t depth;  // 0: not pipelined (whole messages; the plan's segment is unused)
  LinkMessage message;
};

using AllreduceAlgorithm = Algorithm<AllreduceAlgo, collectives::AllreduceSchedule>;
using BcastAlgorithm = Algorithm<BcastAlgo, collectives::BcastSchedule>;

// One collective's table: its name, its algorithms in tie-break order
// (where two cost the same, the earlier one is chosen) and the override
// that forces one of them.
template <typename A>
struct Collective {
  using AlgorithmType = A;
  const char* name;
  std::span<const A> algorithms;
  decltype(A::id) Overrides::*forced;
};

const Collective<AllreduceAlgorithm>& allreduce_collective() noexcept;
const Collective<BcastAlgorithm>& bcast_collective() noexcept;

// The entry of `id`; InvalidArgument for `automatic` or a value outside the table.
const AllreduceAlgorithm& find_algorithm(AllreduceAlgo id);
const BcastAlgorithm& find_algorithm(BcastAlgo id);

}  // namespace rcoll::tuning
