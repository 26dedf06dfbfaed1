// Algorithm choice: the cheapest algorithm under the cost model, and the
// table of the choices by size that the communicator reads per call.
#include "collectives/choose.hpp"

#include <spdlog/fmt/fmt.h>

#include <array>
#include <span>
#include <string>

#include "collectives/collectives.hpp"
#include "common/log.hpp"

namespace rcoll::collectives {
namespace {

constexpr std::array allreduce_candidates{AllreduceAlgo::recursive_doubling, AllreduceAlgo::tree, AllreduceAlgo::ring};
constexpr std::array bcast_candidates{BcastAlgo::binomial, BcastAlgo::scatter_allgather, BcastAlgo::chain};
// A later candidate must beat the best so far by this relative margin.
constexpr double tie_margin = 1e-9;

template <typename Algo, typename Cost, std::size_t N>
Algo argmin(const std::array<Algo, N>& candidates, Cost cost) {
  Algo best = candidates.front();
  double best_cost = cost(best);
  for (Algo algo : candidates) {
    const double c = cost(algo);
    if (c < best_cost * (1 - tie_margin)) {
      best = algo;
      best_cost = c;
    }
  }
  return best;
}

// Sorted last sizes of the pieces on which every cost is linear in the
// size: powers of two, multiples of `segment` (0: none), and `extra`.
std::vector<std::size_t> piece_ends(std::size_t segment, std::span<const std::size_t> extra = {}) {
  std::vector<std::size_t> ends{0};
  for (int e = 0; e <= ChoiceTable::max_exponent; ++e) ends.push_back(std::size_t{1} << e);
  for (std::size_t k = 1; segment > 0 && k <= ChoiceTable::exact_segments; ++k) ends.push_back(k * segment);
  ends.insert(ends.end(), extra.begin(), extra.end());
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  return ends;
}

// On a piece [start, end] each algorithm wins on one interval (or none),
// so from a size where `current` wins, "still current" is true and then
// false: bisection finds each switch exactly.
template <typename Algo, typename Choose>
std::vector<SizeRange<Algo>> build_ranges(Choose choose, const std::vector<std::size_t>& ends) {
  std::vector<SizeRange<Algo>> ranges{{0, choose(0)}};
  std::size_t start = 0;
  for (std::size_t end : ends) {
    std::size_t x = start;
    if (Algo a = choose(x); a != ranges.back().algo) ranges.push_back({x, a});
    while (choose(end) != ranges.back().algo) {
      const Algo current = ranges.back().algo;
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

template <typename Algo>
void append_ranges(std::string& out, const char* name, const std::vector<SizeRange<Algo>>& ranges) {
  out += name;
  out += ":\n";
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const bool last = i + 1 == ranges.size();
    fmt::format_to(std::back_inserter(out), "  {:>10} .. {:<12} -> {}\n", human_bytes(ranges[i].from),
                   last ? std::string("and up") : human_bytes(ranges[i + 1].from), to_string(ranges[i].algo));
  }
}

}  // namespace

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

AllreduceAlgo cheapest_allreduce(std::size_t bytes, int size, const LinkCost& link, const AllreduceTimes* measured) {
  if (size <= 1) return AllreduceAlgo::recursive_doubling;
  if (measured != nullptr && bytes <= measured->bytes.back())
    return argmin(allreduce_candidates, [&](AllreduceAlgo a) { return *measured_seconds(*measured, a, bytes); });
  return argmin(allreduce_candidates, [&](AllreduceAlgo a) { return allreduce_cost(a, bytes, size, link); });
}

BcastAlgo cheapest_bcast(std::size_t bytes, int size, const LinkCost& link, std::size_t segment,
                         int shared_cores) {
  if (size <= 1) return BcastAlgo::binomial;
  return argmin(bcast_candidates,
                [&](BcastAlgo a) { return bcast_cost(a, bytes, size, link, segment, shared_cores); });
}

ChoiceTable::ChoiceTable(int size, const LinkCost& link, std::size_t segment, int shared_cores,
                         std::optional<AllreduceTimes> measured)
    : size_(size),
      link_(link),
      segment_(std::max<std::size_t>(segment, 1)),
      shared_cores_(std::max(shared_cores, 0)),
      measured_(measured) {
  const AllreduceTimes* times = measured_ ? &*measured_ : nullptr;
  std::span<const std::size_t> measured_sizes;  // more ends: the times are linear between them
  if (times != nullptr) measured_sizes = times->bytes;
  allreduce_ = build_ranges<AllreduceAlgo>([&](std::size_t b) { return cheapest_allreduce(b, size_, link_, times); },
                                           piece_ends(0, measured_sizes));
  bcast_ = build_ranges<BcastAlgo>(
      [&](std::size_t b) { return cheapest_bcast(b, size_, link_, segment_, shared_cores_); }, piece_ends(segment_));
}

std::string ChoiceTable::describe(std::string_view source) const {
  std::string out = fmt::format(
      "algorithm choice on {} ranks ({}: alpha {:.3g} us, beta {:.3g} GB/s link, gamma {:.3g} GB/s reduce; "
      "{} segments{})\n",
      size_, source, link_.alpha * 1e6, 1e-9 / link_.beta, 1e-9 / link_.gamma, human_bytes(segment_),
      shared_cores_ > 0 ? fmt::format("; all ranks share {} cores", shared_cores_) : std::string());
  if (measured_)
    fmt::format_to(std::back_inserter(out), "allreduce up to {} by times measured on the shared cores: {}\n",
                   human_bytes(measured_->bytes.back()), collectives::describe(*measured_));
  append_ranges(out, "allreduce", allreduce_);
  append_ranges(out, "bcast", bcast_);
  out.pop_back();  // the last line's newline: the caller ends the text
  return out;
}

AllreduceAlgo choose_allreduce(std::size_t bytes, int size, const transport::Capabilities& caps) {
  const AllreduceAlgo algo = cheapest_allreduce(bytes, size, fallback_link_cost(caps));
  log::debug("allreduce of {} bytes on {} ranks: {}", bytes, size, to_string(algo));
  return algo;
}

BcastAlgo choose_bcast(std::size_t bytes, int size, const transport::Capabilities& caps) {
  const BcastAlgo algo = cheapest_bcast(bytes, size, fallback_link_cost(caps), modelled_segment(caps));
  log::debug("bcast of {} bytes on {} ranks: {}", bytes, size, to_string(algo));
  return algo;
}

std::string describe_choices(int size, const transport::Capabilities& caps) {
  return ChoiceTable(size, fallback_link_cost(caps), modelled_segment(caps)).describe("fallback estimate");
}

}  // namespace rcoll::collectives
