// The alpha-beta(-gamma) cost model behind the algorithm choice. Costs are
// estimated seconds for one call; only their order matters.
#pragma once

#include <cstddef>

#include "rcoll/options.hpp"
#include "transport/transport.hpp"

namespace rcoll::collectives {

struct LinkCost {
  double alpha = 0;  // seconds per message (latency, including the wake-up)
  double beta = 0;   // seconds per byte moved over one link
  double gamma = 0;  // seconds per byte reduced
};

// The FALLBACK: fixed per-transport estimates, used only when calibration
// is off (RCOLL_CALIBRATE=0, one-rank jobs) and by callers that have no
// communicator (collectives::allreduce with `automatic`). The only place
// these constants live; the communicator normally measures alpha/beta/gamma
// at start-up instead (calibration.hpp).
LinkCost fallback_link_cost(const transport::Capabilities& caps);

// True when every field is positive and finite (a usable measurement).
bool plausible(const LinkCost& link);

// Pipeline segment the model assumes for the transport (preferred_segment, or 1 MiB).
std::size_t modelled_segment(const transport::Capabilities& caps);

// Model of one call on `size` ranks of `bytes` bytes (n = size, S = bytes, lg = ceil(log2 n)):
//   ring   2(n-1) a + 2 S (n-1)/n b + S (n-1)/n g
//   rd     lg p (a + S b + S g) [+ 2 (a + S b) + S g when n is not a power of two p]
//   tree   2 lg (a + S b) + lg S g
//   binomial           lg (a + S b)
//   scatter_allgather  (lg + n - 1) a + 2 S (n-1)/n b
//   chain              (n - 2 + k)(a + S/k b), k = ceil(S / segment) segments
double allreduce_cost(AllreduceAlgo algo, std::size_t bytes, int size, const LinkCost& link);
double bcast_cost(BcastAlgo algo, std::size_t bytes, int size, const LinkCost& link, std::size_t segment);

}  // namespace rcoll::collectives
