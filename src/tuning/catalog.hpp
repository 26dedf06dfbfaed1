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
using ReduceAlgorithm = Algorithm<ReduceAlgo, collectives::ReduceSchedule>;
using AllgatherAlgorithm = Algorithm<AllgatherAlgo, collectives::AllgatherSchedule>;
using ReduceScatterAlgorithm = Algorithm<ReduceScatterAlgo, collectives::ReduceScatterSchedule>;
using AlltoallAlgorithm = Algorithm<AlltoallAlgo, collectives::AlltoallSchedule>;
using GatherAlgorithm = Algorithm<GatherAlgo, collectives::GatherSchedule>;
using ScatterAlgorithm = Algorithm<ScatterAlgo, collectives::ScatterSchedule>;

// One collective's table: its name, its algorithms in tie-break order
// (where two cost the same, the earlier one is chosen) and the override
// that forces one of them. A v-variant (allgatherv, ...) shares its
// collective's override and follows it only when its own table has the
// forced algorithm (`forced_if_listed`).
template <typename A>
struct Collective {
  using AlgorithmType = A;
  const char* name;
  std::span<const A> algorithms;
  decltype(A::id) Overrides::*forced;
  bool forced_if_listed = false;
};

const Collective<AllreduceAlgorithm>& allreduce_collective() noexcept;
const Collective<BcastAlgorithm>& bcast_collective() noexcept;
const Collective<ReduceAlgorithm>& reduce_collective() noexcept;
const Collective<AllgatherAlgorithm>& allgather_collective() noexcept;
const Collective<AllgatherAlgorithm>& allgatherv_collective() noexcept;
const Collective<ReduceScatterAlgorithm>& reduce_scatter_collective() noexcept;
const Collective<ReduceScatterAlgorithm>& reduce_scatter_v_collective() noexcept;
const Collective<AlltoallAlgorithm>& alltoall_collective() noexcept;
const Collective<AlltoallAlgorithm>& alltoallv_collective() noexcept;
const Collective<GatherAlgorithm>& gather_collective() noexcept;
const Collective<GatherAlgorithm>& gatherv_collective() noexcept;
const Collective<ScatterAlgorithm>& scatter_collective() noexcept;
const Collective<ScatterAlgorithm>& scatterv_collective() noexcept;

// The entry of `id` in the collective's table; InvalidArgument for
// `automatic` or an algorithm the table does not have.
template <typename A>
const A& find_algorithm(const Collective<A>& collective, decltype(A::id) id);
const AllreduceAlgorithm& find_algorithm(AllreduceAlgo id);
const BcastAlgorithm& find_algorithm(BcastAlgo id);

}  // namespace rcoll::tuning
