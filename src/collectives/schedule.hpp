// The arithmetic of the schedules, as pure functions: which part of the
// buffer a step moves and which peer it talks to. Every rank evaluates them
// with the same arguments and gets the same answer, which is what keeps the
// sends of one rank matched with the receives of another.
#pragma once

#include <cstddef>
#include <vector>

namespace rcoll::collectives {

// A run of elements [offset, offset + count).
struct Range {
  std::size_t offset = 0;
  std::size_t count = 0;
  std::size_t end() const noexcept { return offset + count; }
  friend bool operator==(const Range&, const Range&) = default;
};

// Chunk `index` of `count` elements split into `parts` (>= 1) contiguous
// chunks in order; sizes differ by at most one (the first count % parts
// chunks get one more). Chunks may be empty when count < parts.
Range ring_chunk(std::size_t count, int parts, int index);

// Pipeline pieces: `count` elements cut into the fewest runs of at most
// `segment` (>= 1) elements, as even as can be (sizes differ by at most one,
// the longer ones first). Even pieces keep a pipeline's last step as short
// as its others, and a message just above a segment goes as two halves
// rather than a segment and a sliver. No pieces for count 0.
std::size_t segment_count(std::size_t count, std::size_t segment);
Range segment_range(std::size_t count, std::size_t segment, std::size_t index);
// Elements per segment for a segment size in bytes: whole elements, at least one.
std::size_t segment_elements(std::size_t segment_bytes, std::size_t element_size);

// Elements per pipeline piece of a run of at most `run` elements (a ring's
// largest chunk, a tree's whole vector): `segment_bytes` in whole
// elements, at most the run, so that scratch slots are never larger than
// what they receive.
std::size_t run_segment(std::size_t run, std::size_t element_size, std::size_t segment_bytes);

// Smallest k with 2^k >= n (0 for n <= 1), and largest power of two <= n (n >= 1).
int ceil_log2(int n);
int floor_pow2(int n);
// Non-negative remainder, for rank arithmetic on a ring.
int wrap(int value, int n);

// Binomial tree over `size` ranks rooted at `root`. With v = rank - root
// (mod size), the parent of v clears v's lowest set bit and the children
// of v are v + 2^j for every 2^j below that bit (all 2^j for the root) that
// are < size. Depth is ceil_log2(size).
struct TreeLinks {
  int parent = -1;            // -1 at the root
  std::vector<int> children;  // smallest subtree first
};
TreeLinks binomial_tree(int rank, int size, int root);
// Number of ranks in the subtree of relative rank v (the relative ranks v .. v + result - 1).
int binomial_subtree_size(int relative, int size);

// `count` consecutive relative ranks from `first` (relative to `root`, mod
// `size`; count <= size) as actual ranks: `head` from (first + root) mod
// size up to at most size - 1, then `tail` from 0 (empty unless the run
// wraps past the last rank). Where a binomial gather or scatter keeps a
// subtree's blocks in relative order, this is where they lie in rank order.
struct SplitRun {
  Range head;
  Range tail;
};
SplitRun relative_run(int first, int count, int root, int size);

// Recursive doubling over `size` ranks. The largest power of two pof2 <=
// size takes part in the exchange steps; rank pof2 + i (i < size - pof2)
// first folds its vector into rank i and gets the result back at the end.
struct DoublingPlan {
  int pof2 = 1;
  int steps = 0;          // log2(pof2) exchange steps
  int fold_partner = -1;  // the rank this one folds with, -1 if none
  bool folded = false;    // true: this rank sits out the exchange steps
};
DoublingPlan doubling_plan(int rank, int size);
// The exchange partner of an active rank (< pof2) at `step`.
int doubling_partner(int rank, int step);

// Recursive halving over the pof2 active ranks of a doubling_plan. Each
// active rank v stands for "virtual block" v: the blocks v and pof2 + v (the
// latter where < size, the block of the rank folded into v). At `step` (k,
// distance d = pof2 >> (k + 1)) a rank's virtual blocks are the 2d that
// share its bits above d; it keeps the d that share its bit d, and gives
// the other d to partner rank ^ d, whose `keep` they are. After log2(pof2)
// steps a rank keeps its own virtual block only.
struct HalvingStep {
  int partner = -1;
  Range keep;  // virtual blocks
  Range give;
};
HalvingStep halving_step(int rank, int pof2, int step);

// Chain root -> root+1 -> ... -> root-1 (mod size); -1 past the ends.
struct ChainLinks {
  int prev = -1;
  int next = -1;
};
ChainLinks chain_links(int rank, int size, int root);
// The chain as a tree (one child per rank), for the pipelined forward.
TreeLinks chain_tree(int rank, int size, int root);

// Dissemination barrier round r: send to rank + 2^r, receive from rank - 2^r (mod size).
struct RoundPeers {
  int to = -1;
  int from = -1;
};
RoundPeers dissemination_peers(int rank, int size, int round);

}  // namespace rcoll::collectives
