// Allreduce times measured on the communicator's own ranks, for hosts whose
// ranks outnumber their cores. There the link model (cost_model.hpp)
// misjudges allreduce: it prices rounds, while ranks that take turns on a
// core pay for every rank that must run, and which ranks a step wakes
// matters more than how many steps there are. Measured on 4 ranks of 2
// cores over TCP (docs/PERFORMANCE_LOG.md, "Allreduce on shared cores"):
// 8 B in 60 us by recursive doubling, 42 us by the tree (the model's pick:
// recursive doubling); 128 KiB in 407 us, 226 us (model: recursive doubling).
// So where ranks share cores the communicator times the candidates at a
// few sizes at start-up (comm/allreduce_timing.hpp) and the choice between
// them follows these times; above the largest size the model decides, as
// the ring's pipelining it prices is what counts there.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include "rcoll/options.hpp"

namespace rcoll::collectives {

struct AllreduceTimes {
  // The candidates, in the order of `seconds`.
  static constexpr std::array<AllreduceAlgo, 3> algos{AllreduceAlgo::recursive_doubling, AllreduceAlgo::tree,
                                                       AllreduceAlgo::ring};
  static constexpr std::size_t points = 3;
  std::array<std::size_t, points> bytes{};                     // the sizes timed, ascending
  std::array<std::array<double, points>, algos.size()> seconds{};  // [algorithm][size]: seconds per call
};

// True when the sizes ascend and every time is positive and finite.
bool plausible(const AllreduceTimes& times);

// The time `times` gives `algo` at `bytes`: the smallest size's time up to
// it, linear between consecutive sizes; nullopt above the largest size
// (or for an algorithm that was not timed).
std::optional<double> measured_seconds(const AllreduceTimes& times, AllreduceAlgo algo, std::size_t bytes);

// "rd 60.1 / 200 / 950 us, tree 42 / 120 / 850 us, ring 70.5 / 170 / 900 us at 8 B / 64 KiB / 512 KiB"
std::string describe(const AllreduceTimes& times);

}  // namespace rcoll::collectives
