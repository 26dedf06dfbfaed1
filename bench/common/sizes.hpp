// The message sizes of a benchmark sweep.
#pragma once

#include <cstddef>
#include <vector>

namespace rcoll::bench {

// min, min*factor, ... up to max (inclusive), each rounded down to whole
// `element`s (sizes below one element are kept as they are) and without
// repeats. `factor` > 1; `element` >= 1. Empty when min > max.
std::vector<std::size_t> geometric_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor,
                                         std::size_t element);

}  // namespace rcoll::bench
