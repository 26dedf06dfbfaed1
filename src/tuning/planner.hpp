// Builds the plan: the argmin of the cost model per message size, with the
// segment rule, precomputed as size ranges.
//
// Segment rule, one for every algorithm: the base segment is the override,
// else the transport's preferred one. Where one link message (catalog.hpp,
// LinkMessage) would just miss the eager limit E (E < message <= 2 E, base
// segment > E), the segment is E, so that the message goes as two eager
// halves instead of one rendezvous piece, whose clear-to-send waits for the
// receiver to be scheduled. A bcast on two ranks is one edge from the root
// to a leaf, with nothing to pipeline: it takes pieces of twice the
// segment (fewer per-message costs) unless that turns eager pieces into
// rendezvous ones.
//
// Exactness: between consecutive breakpoints (powers of two, multiples of
// the segments up to exact_segments pieces, the eager thresholds) every
// cost is linear in the size and the segment constant, so each algorithm
// wins on at most one interval there, found by bisection. Above the last
// breakpoint the last range applies.
#pragma once

#include "tuning/plan.hpp"
#include "tuning/planner_inputs.hpp"

namespace rcoll::tuning {

inline constexpr int max_exponent = 34;
inline constexpr std::size_t exact_segments = 512;
// The base segment when neither an override nor the transport gives one.
inline constexpr std::size_t default_segment = std::size_t{256} << 10;

Plan make_plan(const PlanInputs& inputs);

// What the plan chooses for `collective` at one size, computed from the
// model (no table): the forced algorithm, else the cheapest, with its
// segment and depth. The plan's ranges are built from it (and held
// against it in the tests).
template <typename A>
Choice<A> choose(const Collective<A>& collective, const PlanInputs& inputs, std::size_t bytes);

}  // namespace rcoll::tuning
