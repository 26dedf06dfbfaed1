// The alpha-beta-gamma cost model: the estimated seconds of one call of
// each algorithm, from the link model and the job's shape. Only the order
// of the costs matters: the plan takes the cheapest (docs/PERFORMANCE.md,
// "How the algorithm is chosen").
//
// n = ranks, S = bytes, lg = ceil(log2 n), a b g = alpha beta gamma:
//   allreduce ring   2(n-1) a + 2 S (n-1)/n b + S (n-1)/n g
//   allreduce rd     lg p (a + S b + S g) [+ 2 (a + S b) + S g when n is not a power of two p]
//   allreduce tree   2 lg (a + S b) + lg S g
//   bcast binomial           lg (a + S b)
//   bcast scatter_allgather  (lg + n - 1) a + 2 S (n-1)/n b
//   bcast chain              (n - 2 + k)(a + S/k b), k = ceil(S / segment) pieces
//   allgather ring   (n-1) a + (n-1)/n S b + S/n b
//   allgather rd     lg p a + (n-1)/n S b + S/n b
//                    [+ 2 a + S/n b + (n-1)/n S b (fold, unfold) when n is not a power of two p]
//   allgather bruck  lg a + (n-1)/n S b + S/n b + S b
//   gather/scatter linear    (n-1) a + (n-1)/n S b + S/n b
//   gather/scatter binomial  lg a + (n-1)/n S b + (lg + w(n)) S/n b
// where S/n b is the own block's copy into place (out of place; all alike),
// S b Bruck's rotation out of scratch, and (lg + w) S/n b the binomial's
// copies: lg - 1 inner ranks on the longest path stage their own block,
// the root its own, and w(n) blocks on average over the roots of the one
// child run that wraps past the buffer's end. Copies are priced at b, a
// stand-in for memcpy's rate. Without contention rd is never dearer than
// the ring on a power of two (the same bytes, fewer steps): the ring is
// chosen for large messages on other sizes, and it is the v-variant.
//
// Ranks that share cores (CostModel::shared_cores): every byte that crosses
// a link also costs its sender's and its receiver's CPU a copy, and the
// ranks of one core take turns, so a bcast adds the copies of the busiest
// core (ranks round robin on the cores, as rcoll-run binds them):
//   max over cores c of (sum over ranks r on c of bcast_rank_copies) * b.
// Totals alone miss how the load spreads: on 4 ranks of 2 cores the tree
// and the chain both move 3 S, but the tree puts 4 S on one core and the
// chain 3 S on each. Scatter-allgather is then no candidate (infinite
// cost): its lg + n - 1 steps in a row each wait for a rank to be
// scheduled, which neither a nor the copies capture.
//
// The reduce, reduce_scatter and alltoall algorithms (S: reduce the vector,
// reduce_scatter the whole send buffer, alltoall one rank's send buffer):
//   reduce binomial          lg (a + S b + S g)
//   reduce scatter_gather    reduce_scatter halving + a + (n-1)/n S b (the chunks into the root)
//   reduce_scatter ring      (n-1) a + (n-1)/n S max(b, g) + P min(b, g) + S/n b, P = min(segment, S/n)
//   reduce_scatter halving   lg p a + (p-1)/p S (b + g) + S/n b [+ 2 a + S b + S g + S/n b when n != p]
//   alltoall pairwise        (n-1)(a + S/n b) + S/n b
//   alltoall bruck           lg (a + S/2 b) + (2 + lg) S b
// Local copies are priced at b, a stand-in for memcpy's rate:
// the in-place reduce_scatter moves its block (S/n) to the start of the
// buffer; Bruck rotates the whole buffer twice and packs and unpacks about
// half of it in every step; pairwise copies only the own block. The ring
// reduce-scatter reduces one segment while the next arrives (receives
// posted ahead into scratch slots), so per byte the slower of link and
// reduction counts, plus one piece of the other to fill the pipeline;
// recursive halving reduces each half once it has arrived whole.
#pragma once

#include <cstddef>

#include "rcoll/options.hpp"
#include "tuning/link_cost.hpp"

namespace rcoll::tuning {

struct CostModel {
  int size = 1;
  LinkCost link;
  // > 0: all ranks run on one host with this many CPUs, fewer than the
  // ranks; 0: every rank has a core (or hosts are mixed: links dominate).
  int shared_cores = 0;
};

// Seconds of one call of `bytes` cut in pieces of at most `segment` bytes.
using CostFunction = double (*)(const CostModel& model, std::size_t bytes, std::size_t segment);

double allreduce_ring_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double allreduce_recursive_doubling_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double allreduce_tree_cost(const CostModel& model, std::size_t bytes, std::size_t segment);

double bcast_binomial_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double bcast_scatter_allgather_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double bcast_chain_cost(const CostModel& model, std::size_t bytes, std::size_t segment);

// The collectives of the MPI-style set; `bytes` is the size the plan is
// keyed by: reduce the vector, allgather and gather the whole receive
// buffer, reduce_scatter the whole send buffer, alltoall one rank's whole
// send buffer, scatter the root's whole send buffer.
double reduce_binomial_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double reduce_scatter_gather_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double allgather_ring_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double allgather_recursive_doubling_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double allgather_bruck_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double reduce_scatter_ring_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double reduce_scatter_recursive_halving_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double alltoall_pairwise_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double alltoall_bruck_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double gather_binomial_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double gather_linear_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double scatter_binomial_cost(const CostModel& model, std::size_t bytes, std::size_t segment);
double scatter_linear_cost(const CostModel& model, std::size_t bytes, std::size_t segment);

// Bytes the rank at `relative` position from the root sends plus receives
// in a bcast of `bytes`, and the largest sum of them over the ranks of one
// of `cores` cores (round robin).
double bcast_rank_copies(BcastAlgo algo, std::size_t bytes, int relative, int size);
double bcast_busiest_core(BcastAlgo algo, std::size_t bytes, int size, int cores);

}  // namespace rcoll::tuning
