// rcoll-bench --overlap: common/overlap.hpp's measurement of rcoll's
// iallreduce (float32 sum, out of place) at every size of the sweep; rank 0
// prints one line per size.
#pragma once

#include <rcoll/rcoll.hpp>

#include "options.hpp"
#include "report.hpp"

namespace rcoll::bench {

// Collective; returns the exit status (0, or 1 after an rcoll error).
int run_overlap(Comm& comm, const RunInfo& info);

}  // namespace rcoll::bench
