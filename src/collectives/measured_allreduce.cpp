#include "collectives/measured_allreduce.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "collectives/choose.hpp"

namespace rcoll::collectives {

bool plausible(const AllreduceTimes& times) {
  if (times.bytes[0] >= times.bytes[1]) return false;
  return std::all_of(times.seconds.begin(), times.seconds.end(), [](const auto& pair) {
    return std::all_of(pair.begin(), pair.end(), [](double s) { return std::isfinite(s) && s > 0; });
  });
}

std::optional<double> measured_seconds(const AllreduceTimes& times, AllreduceAlgo algo, std::size_t bytes) {
  const auto* found = std::find(times.algos.begin(), times.algos.end(), algo);
  if (found == times.algos.end() || bytes > times.bytes[1]) return std::nullopt;
  const auto& [small, large] = times.seconds[static_cast<std::size_t>(std::distance(times.algos.begin(), found))];
  if (bytes <= times.bytes[0]) return small;
  const double fraction = static_cast<double>(bytes - times.bytes[0]) / static_cast<double>(times.bytes[1] - times.bytes[0]);
  return small + fraction * (large - small);
}

std::string describe(const AllreduceTimes& times) {
  std::string out;
  for (std::size_t i = 0; i < times.algos.size(); ++i)
    out += fmt::format("{}{} {:.3g} / {:.3g} us", i == 0 ? "" : ", ", to_string(times.algos[i]),
                       times.seconds[i][0] * 1e6, times.seconds[i][1] * 1e6);
  return out + fmt::format(" at {} / {}", human_bytes(times.bytes[0]), human_bytes(times.bytes[1]));
}

}  // namespace rcoll::collectives
