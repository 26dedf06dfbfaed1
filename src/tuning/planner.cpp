#include "tuning/planner.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace rcoll::tuning {
namespace {

// A later candidate must beat the best so far by this relative margin, so
// exact ties (and rounding noise around them) always resolve the same way.
constexpr double tie_margin = 1e-9;

std::size_t base_segment(const PlanInputs& in) {
  if (in.overrides.segment > 0) return in.overrides.segment;
  return in.preferred_segment > 0 ? in.preferred_segment : default_segment;
}

std::size_t link_message(LinkMessage message, std::size_t bytes, int size) {
  if (message != LinkMessage::share || size <= 1) return bytes;
  const auto n = static_cast<std::size_t>(size);
  return bytes / n + (bytes % n != 0 ? 1 : 0);
}

// The segment rule of planner.hpp.
std::size_t segment_for(LinkMessage message, std::size_t bytes, const PlanInputs& in) {
  const std::size_t base = base_segment(in);
  const std::size_t eager = in.eager_limit;
  const std::size_t link = link_message(message, bytes, in.model.size);
  if (eager > 0 && base > eager && link > eager && link - eager <= eager) return eager;
  if (message != LinkMessage::forwarded || in.model.size != 2 || base > SIZE_MAX / 2) return base;
  // Two ranks: one root-to-leaf edge; double pieces unless they turn eager ones into rendezvous.
  const bool crosses = eager > 0 && base <= eager && eager < std::min(2 * base, bytes);
  return crosses ? base : 2 * base;
}

// Sorted last sizes of the pieces on which every cost is linear in the size
// and every segment constant (planner.hpp, "Exactness"), up to
// 2^max_exponent: multiples that would pass it (a transport without an
// eager limit reports the largest size_t) are left out.
std::vector<std::size_t> piece_ends(const PlanInputs& in) {
  constexpr std::size_t last = std::size_t{1} << max_exponent;
  std::vector<std::size_t> ends{0};
  auto add_multiples = [&ends](std::size_t unit, std::size_t count) {
    for (std::size_t k = 1; unit > 0 && k <= count && unit <= last / k; ++k) ends.push_back(k * unit);
  };
  for (int e = 0; e <= max_exponent; ++e) ends.push_back(std::size_t{1} << e);
  // The base segment and the two-rank doubled one (whose multiples are the base's even ones).
  add_multiples(base_segment(in), 2 * exact_segments);
  // Where the eager-halves rule starts and stops: E and 2E for a whole
  // message, nE and 2nE for a ring's share of one.
  const std::size_t eager = in.eager_limit, n = static_cast<std::size_t>(std::max(in.model.size, 1));
  add_multiples(eager, 2);
  if (eager <= last / n) add_multiples(n * eager, 2);
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  return ends;
}

// On a piece [start, end] each choice wins on one interval (or none), so
// from a size where `current` wins, "still current" is true and then
// false: bisection finds each switch exactly.
template <typename Algorithm, typename Choose>
std::vector<SizeRange<Algorithm>> build_ranges(Choose choose, const std::vector<std::size_t>& ends) {
  std::vector<SizeRange<Algorithm>> ranges{{0, choose(0)}};
  std::size_t start = 0;
  for (std::size_t end : ends) {
    std::size_t x = start;
    if (auto c = choose(x); !(c == ranges.back().choice)) ranges.push_back({x, c});
    while (!(choose(end) == ranges.back().choice)) {
      const auto current = ranges.back().choice;
      std::size_t lo = x, hi = end;  // choose(lo) == current != choose(hi)
      while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        (choose(mid) == current ? lo : hi) = mid;
      }
      ranges.push_back({hi, choose(hi)});
      x = hi;
    }
    start = end + 1;
  }
  return ranges;
}

template <typename A>
SizeTable<A> plan_table(const Collective<A>& collective, const PlanInputs& in, const std::vector<std::size_t>& ends) {
  return SizeTable<A>(build_ranges<A>([&](std::size_t b) { return choose(collective, in, b); }, ends));
}

}  // namespace

template <typename A>
Choice<A> choose(const Collective<A>& collective, const PlanInputs& in, std::size_t bytes) {
  // A forced algorithm is the one candidate.
  const auto forced = in.overrides.*collective.forced;
  std::span<const A> candidates = collective.algorithms;
  const auto& table = collective.algorithms;
  const bool listed = std::any_of(table.begin(), table.end(), [forced](const A& a) { return a.id == forced; });
  if (forced != decltype(forced)::automatic && (listed || !collective.forced_if_listed))
    candidates = std::span<const A>(&find_algorithm(collective, forced), 1);
  Choice<A> best;
  double best_cost = 0;
  for (const A& algo : candidates) {
    // An algorithm that is not pipelined gets the base segment at every size, so it splits no range.
    const std::size_t segment = algo.depth == 0 ? base_segment(in) : segment_for(algo.message, bytes, in);
    const double cost = algo.cost(in.model, bytes, segment);
    if (best.algorithm == nullptr || cost < best_cost * (1 - tie_margin)) {
      best = {&algo, segment, algo.depth};
      best_cost = cost;
    }
  }
  return best;
}

template AllreduceChoice choose(const Collective<AllreduceAlgorithm>&, const PlanInputs&, std::size_t);
template BcastChoice choose(const Collective<BcastAlgorithm>&, const PlanInputs&, std::size_t);
template Choice<ReduceAlgorithm> choose(const Collective<ReduceAlgorithm>&, const PlanInputs&, std::size_t);
template Choice<AllgatherAlgorithm> choose(const Collective<AllgatherAlgorithm>&, const PlanInputs&, std::size_t);
template Choice<ReduceScatterAlgorithm> choose(const Collective<ReduceScatterAlgorithm>&, const PlanInputs&,
                                               std::size_t);
template Choice<AlltoallAlgorithm> choose(const Collective<AlltoallAlgorithm>&, const PlanInputs&, std::size_t);
template Choice<GatherAlgorithm> choose(const Collective<GatherAlgorithm>&, const PlanInputs&, std::size_t);
template Choice<ScatterAlgorithm> choose(const Collective<ScatterAlgorithm>&, const PlanInputs&, std::size_t);

Plan make_plan(const PlanInputs& in) {
  const std::vector<std::size_t> ends = piece_ends(in);
  PlanTables tables;
  for_each_table(tables, [&](const auto& collective, auto& table) { table = plan_table(collective, in, ends); });
  return Plan(in, std::move(tables));
}

}  // namespace rcoll::tuning
