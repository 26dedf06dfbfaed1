// What a plan is made from: facts every rank of a job has (the world size,
// the link model shared through the store, the transport's limits and the
// cores the ranks share, read from every rank's join card) and the
// overrides, which the communicator has checked to be the same on every
// rank. Equal inputs give equal plans.
#pragma once

#include <cstddef>
#include <string>

#include "rcoll/options.hpp"
#include "tuning/costs.hpp"

namespace rcoll::tuning {

// Options that replace the plan's own choice; automatic / 0: none.
struct Overrides {
  AllreduceAlgo allreduce = AllreduceAlgo::automatic;
  BcastAlgo bcast = BcastAlgo::automatic;
  std::size_t segment = 0;  // the base segment, in bytes
  ReduceAlgo reduce = ReduceAlgo::automatic;
  AllgatherAlgo allgather = AllgatherAlgo::automatic;
  ReduceScatterAlgo reduce_scatter = ReduceScatterAlgo::automatic;
  AlltoallAlgo alltoall = AlltoallAlgo::automatic;
  GatherAlgo gather = GatherAlgo::automatic;
  ScatterAlgo scatter = ScatterAlgo::automatic;
};

struct PlanInputs {
  CostModel model;
  std::string link_source = "fallback estimate";  // or "measured"
  std::string transport;                          // its name, for the description
  std::size_t eager_limit = 0;        // larger messages go by rendezvous; 0: no limit known
  std::size_t preferred_segment = 0;  // the transport's; 0: the planner's default
  Overrides overrides;
};

}  // namespace rcoll::tuning
