// Timing the allreduce algorithms on the communicator's own ranks at
// start-up, for ranks that share the host's cores: there the choice
// follows these times instead of the link model (collectives/
// measured_allreduce.hpp says why).
//
// Every rank runs every candidate at every size (float32 sums) as
// rcoll-bench does: calls of one candidate back to back, each timed on its
// own, per call the slowest rank (a max over the ranks, which also makes
// the result the same doubles on every rank, so that every rank builds the
// same ChoiceTable), the median over the calls. The candidates take turns
// in rounds, each round in another order, so that a neighbour's burst of
// load hits all of them alike. 27-44 ms on 3-4 TCP ranks of 2 cores,
// 71 ms on 5, 143 ms on 8.
#pragma once

#include <array>
#include <cstddef>

#include "collectives/cost_model.hpp"
#include "collectives/measured_allreduce.hpp"
#include "collectives/collectives.hpp"

namespace rcoll::comm {

struct AllreduceTimingPlan {
  // Three points, because the times are not straight between 8 B and 512
  // KiB: two (8 B, 512 KiB) chose rd from 12 KiB on 3 ranks, where the tree
  // is faster; and up to 512 KiB, because above the largest the model picks
  // the ring (4 ranks: the tree 436 us at 256 KiB, the ring 542 at 256 KiB + 4).
  std::array<std::size_t, collectives::AllreduceTimes::points> bytes{8, std::size_t{64} << 10, std::size_t{512} << 10};
  int rounds = 3;                  // turns of every candidate per size
  int warmups = 1;                 // untimed calls per turn, first
  // Timed calls per turn, per size: small calls are cheap and noisier.
  std::array<int, collectives::AllreduceTimes::points> timed{10, 3, 2};

  // About how long the whole plan takes on `size` ranks sharing `cores`
  // cores: the link model's time of every call, times size / cores (the
  // ranks take turns; on 3-8 TCP ranks of 2 cores this still came out
  // 1.4-1.7x short). The communicator times only when this is below
  // timing_budget_seconds: over an emulated or slow network (the
  // Soft-RoCE guest, alpha 50 us) the timing took seconds, 3.8 s on 4
  // ranks and 11 s on 8, against 27-143 ms over TCP on this host.
  double predicted_seconds(int size, int cores, const collectives::LinkCost& link) const;
};

inline constexpr double timing_budget_seconds = 0.2;

// Collective: every rank calls it with the same arguments, before any
// other collective (its tags lie in a sequence range of their own,
// comm/tags.hpp). `shape` is how the communicator's calls run (transport,
// deadline, segment, tree layout, core sharing), so that the timed calls
// run as the real ones will; its tag_base and label are not used. Errors
// as a collective's: TimeoutError at the deadline, IoError when a peer
// fails, each naming the timing call.
collectives::AllreduceTimes time_allreduce_algorithms(const collectives::Context& shape,
                                                      const AllreduceTimingPlan& plan = {});

}  // namespace rcoll::comm
