#include "common/sizes.hpp"

#include <algorithm>

namespace rcoll::bench {

std::vector<std::size_t> geometric_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor,
                                         std::size_t element) {
  element = std::max<std::size_t>(element, 1);
  std::vector<std::size_t> sizes;
  std::size_t bytes = min_bytes;
  while (bytes <= max_bytes) {
    const std::size_t aligned = bytes < element ? bytes : bytes / element * element;
    // A factor close to 1 would otherwise repeat the same element count.
    if (sizes.empty() || sizes.back() != aligned) sizes.push_back(aligned);
    const double next = static_cast<double>(bytes) * factor;
    if (next > static_cast<double>(max_bytes)) break;
    // Factors close to 1 must still make progress.
    bytes = std::max(bytes + 1, static_cast<std::size_t>(next));
  }
  return sizes;
}

}  // namespace rcoll::bench
