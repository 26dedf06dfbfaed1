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
//
// Bcast on a host whose ranks share few cores (`shared_cores` > 0: all `size`
// ranks on one host with that many cores): every byte that crosses a link
// also costs the sender's and the receiver's CPU a copy, and those copies
// of all links share the cores. Each bcast cost then adds
//   link_bytes * 2 b / shared_cores
// where link_bytes is what the algorithm moves over all links together:
// (n-1) S for binomial and chain (the minimum), and for scatter_allgather
// (n-1) S plus the scatter's S/n per rank below each non-root rank. So on
// 4 ranks of a 2-core host the scatter-allgather's extra traffic is no
// longer free (measured there: 0.65-1.0x the busbw of the binomial tree
// from 384 KiB to 2 MiB, where the plain model chose it). 0: links are independent.
double bcast_cost(BcastAlgo algo, std::size_t bytes, int size, const LinkCost& link, std::size_t segment,
                  int shared_cores = 0);
// What a bcast moves over all links together (see above).
double bcast_link_bytes(BcastAlgo algo, std::size_t bytes, int size);

}  // namespace rcoll::collectives
