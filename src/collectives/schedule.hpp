// The arithmetic of the schedules, as pure functions: which part of the
// buffer a step moves and which peer it talks to. Every rank evaluates them
// with the same arguments and gets the same answer, which is what keeps the
// sends of one rank matched with the receives of another.
#pragma once

#include <cstddef>
#include <cstdint>
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

// Pipeline segments: `count` elements cut into runs of `segment` (>= 1)
// elements, the last one possibly shorter. No segments for count 0.
std::size_t segment_count(std::size_t count, std::size_t segment);
Range segment_range(std::size_t count, std::size_t segment, std::size_t index);
// Elements per segment for a segment size in bytes: whole elements, at least one.
std::size_t segment_elements(std::size_t segment_bytes, std::size_t element_size);

// Elements per pipeline segment of a ring whose largest chunk has
// `largest_chunk` elements: `segment_bytes` in whole elements, at most the
// chunk. Over a transport with an eager limit E (0: none), a chunk of
// (E, 2E] bytes whose segment is above E would go by rendezvous in one
// piece, whose clear-to-send waits for the receiver to be scheduled; unless
// `ranks_share_cores`, it goes in two eager halves instead (forward_pieces).
// Ranks that share cores keep the one piece: eager halves let a rank run
// ahead of the one sharing its core (4-rank allreduce on 2 cores lost
// 14-36 % at 1-2 MiB; docs/PERFORMANCE_LOG.md).
std::size_t ring_segment(std::size_t largest_chunk, std::size_t element_size, std::size_t segment_bytes,
                         std::size_t eager_limit, bool ranks_share_cores);

// Smallest k with 2^k >= n (0 for n <= 1), and largest power of two <= n (n >= 1).
int ceil_log2(int n);
int floor_pow2(int n);
// Non-negative remainder, for rank arithmetic on a ring.
int wrap(int value, int n);

// Where the ranks sit in a binomial tree.
// - contiguous: relative rank v (rank - root mod size) at position v.
// - alternating: positions 2j and 2j+1 swap their ranks when j has an odd
//   number of set bits (a swap that needs rank size is skipped). A position
//   with an even number of set bits then holds an even relative rank and one
//   with an odd number an odd one; every tree edge adds one set bit, so each
//   joins an even and an odd relative rank (all but at most one edge when
//   size is odd). On a host whose ranks share an even number of cores round
//   robin (rank r on core r mod cores), parent and child then run on
//   different cores and neither waits for the other to give up its core:
//   4-rank bcast on 2 cores, 8 B-256 KiB, was 5-30 % faster
//   (docs/PERFORMANCE_LOG.md, "A bcast tree across cores"). Larger messages
//   keep the contiguous layout (bcast_binomial.cpp).
enum class TreeLayout : std::uint8_t { contiguous, alternating };

// Binomial tree over `size` ranks rooted at `root`. In position numbering
// (TreeLayout) the parent of v clears v's lowest set bit and the children
// of v are v + 2^j for every 2^j below that bit (all 2^j for the root) that
// are < size. Depth is ceil_log2(size).
struct TreeLinks {
  int parent = -1;              // -1 at the root
  bool parent_is_root = false;  // the parent is the root (which holds all data from the start)
  std::vector<int> children;    // smallest subtree first
  std::vector<int> child_sizes;  // ranks in each child's subtree, in the order of `children`
};
TreeLinks binomial_tree(int rank, int size, int root, TreeLayout layout = TreeLayout::contiguous);
// Number of ranks in the subtree of position v (the positions v .. v + result - 1).
int binomial_subtree_size(int relative, int size);
// The relative rank at position v under `layout`, and (the same map: it is
// its own inverse) the position of relative rank v.
int tree_position(int v, int size, TreeLayout layout);

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

// How a pipelined tree forward of `bytes` bytes cuts the message, over a
// transport that sends messages of up to `eager_limit` bytes eagerly and
// larger ones by rendezvous (a round trip more: on loopback TCP 20 us
// unloaded, over 100 us with ranks sharing cores).
// - `segment`: the piece on an inner edge. The caller's segment, except
//   where the message fits in two eager pieces but not in one
//   (eager_limit < bytes <= 2 eager_limit, segment > eager_limit): then two
//   halves. 4-rank bcast over TCP from 256 KiB + 4 B to 512 KiB took about
//   half the time that way (docs/PERFORMANCE_LOG.md, "Eager halves").
// - `double_root_leaf`: an edge from the root to a leaf carries pieces of
//   twice the segment. Such an edge has nothing to pipeline (its sender
//   holds everything from the start and its receiver forwards nothing), so
//   its pieces only need to keep the link streaming, and fewer pieces pay
//   fewer per-message costs. Measured over TCP, 2 ranks: 1 MiB pieces beat
//   512 KiB ones by 0-25 % from 768 KiB to 4 MiB and one whole message by
//   5-15 % from 4 MiB up. Not where doubling would turn eager pieces into
//   rendezvous ones.
// Both ends of every edge compute the same, so they agree on the pieces.
struct ForwardPieces {
  std::size_t segment = 1;
  bool double_root_leaf = true;
};
ForwardPieces forward_pieces(std::size_t bytes, std::size_t segment, std::size_t eager_limit);
// The piece size of one edge: pieces.segment, doubled on a root-to-leaf
// edge where pieces.double_root_leaf.
std::size_t edge_segment(const ForwardPieces& pieces, bool from_root, bool to_leaf);
// edge_segment of a rank's edge from its parent (links.parent >= 0), and of
// its edge to links.children[child]. For every edge of a tree, the parent's
// outgoing_segment equals the child's incoming_segment.
std::size_t incoming_segment(const TreeLinks& links, const ForwardPieces& pieces);
std::size_t outgoing_segment(const TreeLinks& links, std::size_t child, const ForwardPieces& pieces);

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
