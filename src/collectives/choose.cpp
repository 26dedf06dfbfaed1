// Algorithm choice: the cheapest algorithm under the cost model, and a
// table of the choices by size so that tuning explains itself.
#include <spdlog/fmt/fmt.h>

#include <array>
#include <string>

#include "collectives/collectives.hpp"
#include "collectives/cost_model.hpp"
#include "common/log.hpp"

namespace rcoll::collectives {
namespace {

constexpr std::array allreduce_candidates{AllreduceAlgo::recursive_doubling, AllreduceAlgo::tree, AllreduceAlgo::ring};
constexpr std::array bcast_candidates{BcastAlgo::binomial, BcastAlgo::scatter_allgather, BcastAlgo::chain};

AllreduceAlgo cheapest_allreduce(std::size_t bytes, int size, const transport::Capabilities& caps) {
  if (size <= 1) return AllreduceAlgo::recursive_doubling;
  const LinkCost link = estimated_link_cost(caps);
  AllreduceAlgo best = allreduce_candidates.front();
  for (AllreduceAlgo algo : allreduce_candidates)
    if (allreduce_cost(algo, bytes, size, link) < allreduce_cost(best, bytes, size, link)) best = algo;
  return best;
}

BcastAlgo cheapest_bcast(std::size_t bytes, int size, const transport::Capabilities& caps) {
  if (size <= 1) return BcastAlgo::binomial;
  const LinkCost link = estimated_link_cost(caps);
  const std::size_t segment = modelled_segment(caps);
  BcastAlgo best = bcast_candidates.front();
  for (BcastAlgo algo : bcast_candidates)
    if (bcast_cost(algo, bytes, size, link, segment) < bcast_cost(best, bytes, size, link, segment)) best = algo;
  return best;
}

std::string human_bytes(std::size_t bytes) {
  constexpr std::array units{"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < units.size()) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.4g} {}", value, units[unit]);
}

// Lines "  [from, to) -> algo" for sizes 0 .. 2^max_exponent, with the exact
// switch points (found by bisection between powers of two).
constexpr int max_exponent = 34;

template <typename Choose>
void append_ranges(std::string& out, Choose choose) {
  std::size_t from = 0;
  auto current = choose(0);
  auto emit = [&](std::size_t to, bool last) {
    fmt::format_to(std::back_inserter(out), "  {:>10} .. {:<12} {}\n", human_bytes(from),
                   last ? std::string("and up") : human_bytes(to), to_string(current));
  };
  std::size_t previous = 0;
  for (int e = 0; e <= max_exponent; ++e) {
    const std::size_t probe = std::size_t{1} << e;
    if (choose(probe) == current) {
      previous = probe;
      continue;
    }
    std::size_t lo = previous, hi = probe;  // choose(lo) == current != choose(hi)
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (choose(mid) == current ? lo : hi) = mid;
    }
    emit(hi, false);
    from = hi;
    current = choose(hi);
    previous = probe;
  }
  emit(0, true);
}

}  // namespace

AllreduceAlgo choose_allreduce(std::size_t bytes, int size, const transport::Capabilities& caps) {
  const AllreduceAlgo algo = cheapest_allreduce(bytes, size, caps);
  log::debug("allreduce of {} bytes on {} ranks: {}", bytes, size, to_string(algo));
  return algo;
}

BcastAlgo choose_bcast(std::size_t bytes, int size, const transport::Capabilities& caps) {
  const BcastAlgo algo = cheapest_bcast(bytes, size, caps);
  log::debug("bcast of {} bytes on {} ranks: {}", bytes, size, to_string(algo));
  return algo;
}

std::string describe_choices(int size, const transport::Capabilities& caps) {
  const LinkCost link = estimated_link_cost(caps);
  std::string out = fmt::format("algorithm choice on {} ranks (model: alpha {:.3g} us, {:.3g} GB/s link, "
                                "{:.3g} GB/s reduce, {} segments)\n",
                                size, link.alpha * 1e6, 1e-9 / link.beta, 1e-9 / link.gamma,
                                human_bytes(modelled_segment(caps)));
  out += "allreduce:\n";
  append_ranges(out, [&](std::size_t bytes) { return cheapest_allreduce(bytes, size, caps); });
  out += "bcast:\n";
  append_ranges(out, [&](std::size_t bytes) { return cheapest_bcast(bytes, size, caps); });
  return out;
}

}  // namespace rcoll::collectives
