// Algorithm choice under the cost model (cost_model.hpp): the argmin per
// message size, and the same choice precomputed as a table of size ranges
// so that a call pays one short search instead of evaluating the model.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/cost_model.hpp"
#include "collectives/measured_allreduce.hpp"
#include "rcoll/options.hpp"

namespace rcoll::collectives {

// The cheapest candidate for `bytes` on `size` ranks. A candidate must be
// cheaper by more than a relative 1e-9 to displace an earlier one, so exact
// ties (and rounding noise around them) always resolve the same way.
// Candidate order: allreduce rd, tree, ring; bcast binomial, scatter_allgather, chain.
// With `measured` (non-null), sizes up to its largest size go by its times
// instead of the model (measured_allreduce.hpp).
AllreduceAlgo cheapest_allreduce(std::size_t bytes, int size, const LinkCost& link,
                                 const AllreduceTimes* measured = nullptr);
// `shared_cores` as in bcast_cost (0: links independent).
BcastAlgo cheapest_bcast(std::size_t bytes, int size, const LinkCost& link, std::size_t segment,
                         int shared_cores = 0);

// "512 B", "256 KiB", "1.5 MiB": sizes in tables and logs.
std::string human_bytes(std::size_t bytes);

template <typename Algo>
struct SizeRange {
  std::size_t from;  // first message size (bytes) of the range; it ends where the next one starts
  Algo algo;
};

// cheapest_allreduce/cheapest_bcast for one world size, as size ranges,
// built once (tens of microseconds). Exact for every size up to
// 2^max_exponent bytes: the model's costs are linear in the size between
// consecutive breakpoints (powers of two, and for bcast multiples of the
// segment up to exact_segments segments), so each algorithm wins on at most
// one interval between two breakpoints, found by bisection. Above the last
// breakpoint the last range applies.
class ChoiceTable {
 public:
  static constexpr int max_exponent = 34;
  static constexpr std::size_t exact_segments = 512;

  // `segment` > 0: the pipeline segment the chain bcast runs with.
  // `shared_cores` > 0: all ranks run on one host with that many cores
  // (bcast_cost); the communicator passes it when the ranks share them
  // (CoreSharing::ranks_share_cores), and then also the allreduce times it
  // measured (`measured`, plausible(); see cheapest_allreduce).
  ChoiceTable(int size, const LinkCost& link, std::size_t segment, int shared_cores = 0,
              std::optional<AllreduceTimes> measured = std::nullopt);

  AllreduceAlgo allreduce(std::size_t bytes) const { return find(allreduce_, bytes); }
  BcastAlgo bcast(std::size_t bytes) const { return find(bcast_, bytes); }

  const std::vector<SizeRange<AllreduceAlgo>>& allreduce_ranges() const noexcept { return allreduce_; }
  const std::vector<SizeRange<BcastAlgo>>& bcast_ranges() const noexcept { return bcast_; }
  const LinkCost& link() const noexcept { return link_; }
  const std::optional<AllreduceTimes>& measured() const noexcept { return measured_; }

  // Printable table: a header with alpha, beta, gamma (saying `source`, e.g.
  // "measured" or "fallback estimate") and lines "from .. to -> algorithm",
  // without a final newline.
  std::string describe(std::string_view source) const;

 private:
  template <typename Algo>
  static Algo find(const std::vector<SizeRange<Algo>>& ranges, std::size_t bytes) {
    // ranges[0].from == 0, so the range before the first one starting above `bytes` exists.
    auto after = std::upper_bound(ranges.begin(), ranges.end(), bytes,
                                  [](std::size_t b, const SizeRange<Algo>& r) { return b < r.from; });
    return std::prev(after)->algo;
  }

  int size_;
  LinkCost link_;
  std::size_t segment_;
  int shared_cores_;
  std::optional<AllreduceTimes> measured_;
  std::vector<SizeRange<AllreduceAlgo>> allreduce_;
  std::vector<SizeRange<BcastAlgo>> bcast_;
};

}  // namespace rcoll::collectives
