#include "collectives/measured_allreduce.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "collectives/choose.hpp"

namespace rcoll::collectives {

bool plausible(const AllreduceTimes& times) {
  if (!std::is_sorted(times.bytes.begin(), times.bytes.end()) ||
      std::adjacent_find(times.bytes.begin(), times.bytes.end()) != times.bytes.end())
    return false;
  return std::all_of(times.seconds.begin(), times.seconds.end(), [](const auto& row) {
    return std::all_of(row.begin(), row.end(), [](double s) { return std::isfinite(s) && s > 0; });
  });
}

std::optional<double> measured_seconds(const AllreduceTimes& times, AllreduceAlgo algo, std::size_t bytes) {
  const auto* found = std::find(times.algos.begin(), times.algos.end(), algo);
  if (found == times.algos.end() || bytes > times.bytes.back()) return std::nullopt;
  const auto& row = times.seconds[static_cast<std::size_t>(std::distance(times.algos.begin(), found))];
  if (bytes <= times.bytes.front()) return row.front();
  // The first timed size at or above `bytes`, and the one below it.
  const std::size_t hi = static_cast<std::size_t>(
      std::distance(times.bytes.begin(), std::lower_bound(times.bytes.begin(), times.bytes.end(), bytes)));
  const std::size_t lo = hi - 1;
  const double fraction =
      static_cast<double>(bytes - times.bytes[lo]) / static_cast<double>(times.bytes[hi] - times.bytes[lo]);
  return row[lo] + fraction * (row[hi] - row[lo]);
}

std::string describe(const AllreduceTimes& times) {
  std::string out;
  for (std::size_t a = 0; a < times.algos.size(); ++a) {
    out += fmt::format("{}{} ", a == 0 ? "" : ", ", to_string(times.algos[a]));
    for (std::size_t s = 0; s < times.points; ++s)
      out += fmt::format("{}{:.3g}", s == 0 ? "" : " / ", times.seconds[a][s] * 1e6);
    out += " us";
  }
  out += " at ";
  for (std::size_t s = 0; s < times.points; ++s) out += (s == 0 ? "" : " / ") + human_bytes(times.bytes[s]);
  return out;
}

}  // namespace rcoll::collectives
