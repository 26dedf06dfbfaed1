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
// Bcast on a host whose ranks outnumber its cores (`shared_cores` > 0 and
// below `size`: all ranks on one host with that many cores): every byte
// that crosses a link also costs its sender's and its receiver's CPU a
// copy, and the ranks of one core take turns. With the ranks placed round
// robin (rank r on core r mod cores, as rcoll-run --bind auto places
// oversubscribed ranks), each bcast cost adds the copies of the busiest
// core:
//   max over cores c of  sum over ranks r on c of bcast_rank_copies  * b
// (root 0; binomial trees laid out contiguous, as for messages above the
// eager limit). Totals alone miss how the load spreads: on 4 ranks of 2
// cores binomial and chain both move 3 S, but the tree puts 4 S of copies
// on core 0 (ranks 0 and 2: root and inner node) and the chain 3 S on each
// core; measured there, the chain took 10-25 % less time than the tree
// from 640 KiB to 1 MiB. Scatter-allgather is then no candidate (infinite
// cost): its lg + n - 1 steps in a row each wait for a rank to be
// scheduled, which a and the copies do not capture (4 ranks on 2 cores:
// 0.65-1.0x the tree's busbw from 384 KiB to 2 MiB; 8 ranks on 2 cores,
// chosen by the copies alone from 109 to 512 KiB: 2-4x the tree's time).
// Otherwise (0, or a core per rank) the links are independent and the
// copies are inside b.
double bcast_cost(BcastAlgo algo, std::size_t bytes, int size, const LinkCost& link, std::size_t segment,
                  int shared_cores = 0);
// Bytes the rank at `relative` position from the root sends plus receives
// in a bcast of `bytes` (see above), and the largest sum of them over the
// ranks of one of `cores` cores (round robin).
double bcast_rank_copies(BcastAlgo algo, std::size_t bytes, int relative, int size);
double bcast_busiest_core(BcastAlgo algo, std::size_t bytes, int size, int cores);

}  // namespace rcoll::collectives
