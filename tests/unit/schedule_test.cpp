// The pure schedule arithmetic: chunks, segments, trees, partners.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <queue>
#include <set>
#include <vector>

#include "collectives/schedule.hpp"

namespace rcoll::collectives {
namespace {

TEST(RingChunk, ChunksTileTheBufferInOrderAndDifferByAtMostOne) {
  for (int parts = 1; parts <= 64; ++parts) {
    for (std::size_t count : {0, 1, 2, 3, 7, 63, 64, 65, 100, 1001, 4096}) {
      std::size_t next = 0, smallest = SIZE_MAX, largest = 0;
      for (int k = 0; k < parts; ++k) {
        const Range chunk = ring_chunk(count, parts, k);
        ASSERT_EQ(chunk.offset, next) << "count " << count << " parts " << parts << " chunk " << k;
        next = chunk.end();
        smallest = std::min(smallest, chunk.count);
        largest = std::max(largest, chunk.count);
      }
      ASSERT_EQ(next, count);
      ASSERT_LE(largest - smallest, 1u);
    }
  }
}

TEST(RingChunk, KnownSplit) {
  // 10 over 4: 3 3 2 2.
  EXPECT_EQ(ring_chunk(10, 4, 0), (Range{0, 3}));
  EXPECT_EQ(ring_chunk(10, 4, 1), (Range{3, 3}));
  EXPECT_EQ(ring_chunk(10, 4, 2), (Range{6, 2}));
  EXPECT_EQ(ring_chunk(10, 4, 3), (Range{8, 2}));
  // Fewer elements than chunks: the tail chunks are empty.
  EXPECT_EQ(ring_chunk(2, 5, 1), (Range{1, 1}));
  EXPECT_EQ(ring_chunk(2, 5, 4), (Range{2, 0}));
}

TEST(Segments, CutIntoFullSegmentsAndAShorterLastOne) {
  EXPECT_EQ(segment_count(0, 4), 0u);
  EXPECT_EQ(segment_count(1, 4), 1u);
  EXPECT_EQ(segment_count(8, 4), 2u);
  EXPECT_EQ(segment_count(9, 4), 3u);
  EXPECT_EQ(segment_range(9, 4, 2), (Range{8, 1}));
  for (std::size_t count : {1, 5, 64, 1000, 1001}) {
    for (std::size_t segment : {1, 3, 64, 2000}) {
      std::size_t next = 0;
      for (std::size_t j = 0; j < segment_count(count, segment); ++j) {
        const Range seg = segment_range(count, segment, j);
        ASSERT_EQ(seg.offset, next);
        ASSERT_GT(seg.count, 0u);
        ASSERT_LE(seg.count, segment);
        next = seg.end();
      }
      ASSERT_EQ(next, count);
    }
  }
}

TEST(Segments, SegmentElementsAreWholeAndAtLeastOne) {
  EXPECT_EQ(segment_elements(64, 8), 8u);
  EXPECT_EQ(segment_elements(65, 8), 8u);
  EXPECT_EQ(segment_elements(4, 8), 1u);
  EXPECT_EQ(segment_elements(1 << 20, 2), 1u << 19);
}

TEST(Log2, CeilAndFloor) {
  EXPECT_EQ(ceil_log2(1), 0);
  EXPECT_EQ(ceil_log2(2), 1);
  EXPECT_EQ(ceil_log2(3), 2);
  EXPECT_EQ(ceil_log2(8), 3);
  EXPECT_EQ(ceil_log2(9), 4);
  EXPECT_EQ(floor_pow2(1), 1);
  EXPECT_EQ(floor_pow2(7), 4);
  EXPECT_EQ(floor_pow2(8), 8);
  EXPECT_EQ(floor_pow2(63), 32);
  EXPECT_EQ(wrap(-1, 5), 4);
  EXPECT_EQ(wrap(7, 5), 2);
}

// For every size, root and layout: parent and children agree, every rank
// is reached from the root exactly once, depth is ceil(log2 n), and
// subtree sizes match.
TEST(BinomialTree, IsASpanningTreeOfLogDepthForAnyRootAndLayout) {
  for (TreeLayout layout : {TreeLayout::contiguous, TreeLayout::alternating}) {
    for (int size = 1; size <= 64; ++size) {
      for (int root = 0; root < size; ++root) {
        std::vector<TreeLinks> links;
        for (int r = 0; r < size; ++r) links.push_back(binomial_tree(r, size, root, layout));
        ASSERT_EQ(links[root].parent, -1);
        std::vector<int> depth(size, -1), reached(size, 0);
        std::queue<int> frontier;
        depth[root] = 0;
        frontier.push(root);
        while (!frontier.empty()) {
          const int r = frontier.front();
          frontier.pop();
          ++reached[r];
          for (int c : links[r].children) {
            ASSERT_EQ(links[c].parent, r) << "size " << size << " root " << root;
            depth[c] = depth[r] + 1;
            frontier.push(c);
          }
        }
        for (int r = 0; r < size; ++r) {
          ASSERT_EQ(reached[r], 1) << "size " << size << " root " << root << " rank " << r;
          ASSERT_LE(depth[r], ceil_log2(size));
          if (r != root) {
            ASSERT_GE(links[r].parent, 0);
          }
        }
        // Subtree of position v: the positions v .. v + size(v) - 1.
        auto position = [&](int rank) { return tree_position(wrap(rank - root, size), size, layout); };
        for (int r = 0; r < size; ++r) {
          int total = 1;
          for (std::size_t i = 0; i < links[r].children.size(); ++i) {
            const int child = links[r].children[i];
            ASSERT_EQ(links[r].child_sizes[i], binomial_subtree_size(position(child), size));
            total += binomial_subtree_size(position(child), size);
          }
          ASSERT_EQ(total, binomial_subtree_size(position(r), size)) << "size " << size << " rank " << r;
        }
      }
    }
  }
}

// The alternating layout: a permutation that is its own inverse, and every
// edge joins an even and an odd relative rank (all but one at odd sizes).
TEST(BinomialTree, AlternatingLayoutPutsEveryEdgeAcrossRankParity) {
  for (int size = 1; size <= 64; ++size) {
    std::set<int> ranks;
    for (int v = 0; v < size; ++v) {
      const int r = tree_position(v, size, TreeLayout::alternating);
      ASSERT_TRUE(r >= 0 && r < size);
      ranks.insert(r);
      ASSERT_EQ(tree_position(r, size, TreeLayout::alternating), v) << "size " << size;
    }
    ASSERT_EQ(ranks.size(), static_cast<std::size_t>(size));
    for (int root : {0, size - 1}) {
      int same_parity = 0;
      for (int r = 0; r < size; ++r) {
        const TreeLinks links = binomial_tree(r, size, root, TreeLayout::alternating);
        for (int c : links.children) same_parity += wrap(r - root, size) % 2 == wrap(c - root, size) % 2;
      }
      EXPECT_LE(same_parity, size % 2) << "size " << size << " root " << root;
    }
  }
  // 4 ranks: 0 -> 3, 0 -> 1, 3 -> 2; contiguous has the edge 0 -> 2.
  EXPECT_EQ(binomial_tree(0, 4, 0, TreeLayout::alternating).children, (std::vector<int>{1, 3}));
  EXPECT_EQ(binomial_tree(3, 4, 0, TreeLayout::alternating).children, (std::vector<int>{2}));
  EXPECT_EQ(binomial_tree(0, 4, 0).children, (std::vector<int>{1, 2}));
}

TEST(BinomialTree, ChildrenSmallestSubtreeFirst) {
  const TreeLinks root = binomial_tree(0, 8, 0);
  EXPECT_EQ(root.children, (std::vector<int>{1, 2, 4}));
  const TreeLinks four = binomial_tree(4, 8, 0);
  EXPECT_EQ(four.parent, 0);
  EXPECT_EQ(four.children, (std::vector<int>{5, 6}));
  // Root 3 of 6: relative 2 is rank 5, its children relative 3 -> rank 0.
  const TreeLinks five = binomial_tree(5, 6, 3);
  EXPECT_EQ(five.parent, 3);
  EXPECT_EQ(five.children, (std::vector<int>{0}));
}

TEST(RecursiveDoubling, FoldedRanksPairUpAndPartnersAreMutual) {
  for (int size = 1; size <= 64; ++size) {
    const int pof2 = floor_pow2(size);
    std::set<int> folded_into;
    for (int r = 0; r < size; ++r) {
      const DoublingPlan plan = doubling_plan(r, size);
      ASSERT_EQ(plan.pof2, pof2);
      ASSERT_EQ(1 << plan.steps, pof2);
      ASSERT_EQ(plan.folded, r >= pof2);
      if (plan.fold_partner >= 0) {
        const DoublingPlan partner = doubling_plan(plan.fold_partner, size);
        ASSERT_EQ(partner.fold_partner, r);
        ASSERT_NE(partner.folded, plan.folded);
      }
      if (plan.folded) folded_into.insert(plan.fold_partner);
      for (int step = 0; !plan.folded && step < plan.steps; ++step) {
        const int peer = doubling_partner(r, step);
        ASSERT_LT(peer, pof2);
        ASSERT_EQ(doubling_partner(peer, step), r);
      }
    }
    ASSERT_EQ(static_cast<int>(folded_into.size()), size - pof2);
  }
}

// After the exchange steps every active rank has combined every active
// rank's data exactly once.
TEST(RecursiveDoubling, ExchangeStepsGatherEveryActiveRank) {
  for (int pof2 : {1, 2, 4, 8, 32}) {
    std::vector<std::vector<int>> have(pof2);
    for (int r = 0; r < pof2; ++r) have[r] = {r};
    for (int step = 0; (1 << step) < pof2; ++step) {
      auto next = have;
      for (int r = 0; r < pof2; ++r) {
        const auto& theirs = have[doubling_partner(r, step)];
        next[r].insert(next[r].end(), theirs.begin(), theirs.end());
      }
      have = next;
    }
    for (auto& h : have) {
      std::sort(h.begin(), h.end());
      ASSERT_EQ(static_cast<int>(h.size()), pof2);
      ASSERT_EQ(std::adjacent_find(h.begin(), h.end()), h.end());
    }
  }
}

TEST(Chain, VisitsRanksFromTheRootInRingOrder) {
  for (int size = 1; size <= 16; ++size) {
    for (int root = 0; root < size; ++root) {
      std::vector<int> order{root};
      int r = root;
      while (chain_links(r, size, root).next >= 0) {
        const int next = chain_links(r, size, root).next;
        ASSERT_EQ(chain_links(next, size, root).prev, r);
        order.push_back(next);
        r = next;
      }
      ASSERT_EQ(static_cast<int>(order.size()), size);
      for (int i = 0; i < size; ++i) ASSERT_EQ(order[i], (root + i) % size);
      ASSERT_EQ(chain_links(root, size, root).prev, -1);
    }
  }
}

// Every edge of a forwarding tree: the parent's pieces are the child's
// (both ends cut the message alike), child_sizes are the real subtree
// sizes, and only root-to-leaf edges carry double segments.
void expect_edges_agree(const std::vector<TreeLinks>& links, int root, const ForwardPieces& pieces) {
  const int size = static_cast<int>(links.size());
  for (int r = 0; r < size; ++r) {
    ASSERT_EQ(links[r].parent_is_root, r != root && links[r].parent == root) << "rank " << r;
    ASSERT_EQ(links[r].child_sizes.size(), links[r].children.size());
    for (std::size_t i = 0; i < links[r].children.size(); ++i) {
      const TreeLinks& child = links[links[r].children[i]];
      int reach = 0;  // ranks below and including the child
      std::vector<int> todo{links[r].children[i]};
      while (!todo.empty()) {
        const int c = todo.back();
        todo.pop_back();
        ++reach;
        todo.insert(todo.end(), links[c].children.begin(), links[c].children.end());
      }
      ASSERT_EQ(links[r].child_sizes[i], reach) << "size " << size << " rank " << r << " child " << i;
      const std::size_t piece = outgoing_segment(links[r], i, pieces);
      ASSERT_EQ(piece, incoming_segment(child, pieces)) << "size " << size << " edge from " << r;
      const bool doubled = r == root && child.children.empty() && pieces.double_root_leaf;
      ASSERT_EQ(piece, doubled ? 2 * pieces.segment : pieces.segment) << "size " << size << " edge from " << r;
    }
  }
}

TEST(ForwardEdges, BothEndsCutTheMessageAlikeOnBinomialTreesAndChains) {
  for (int size = 2; size <= 33; ++size)
    for (int root : {0, 1, size - 1}) {
      std::vector<TreeLinks> tree, chain;
      for (int r = 0; r < size; ++r) {
        tree.push_back(binomial_tree(r, size, root));
        chain.push_back(chain_tree(r, size, root));
      }
      for (const ForwardPieces pieces : {ForwardPieces{4096, true}, ForwardPieces{4096, false}}) {
        expect_edges_agree(tree, root, pieces);
        expect_edges_agree(chain, root, pieces);
      }
    }
}

TEST(ForwardEdges, OnlyRootToLeafEdgesTakeDoubleSegments) {
  const ForwardPieces pieces{4096, true};
  EXPECT_EQ(edge_segment(pieces, true, true), 8192u);
  EXPECT_EQ(edge_segment(pieces, true, false), 4096u);
  EXPECT_EQ(edge_segment(pieces, false, true), 4096u);
  EXPECT_EQ(edge_segment(pieces, false, false), 4096u);
  EXPECT_EQ(edge_segment({4096, false}, true, true), 4096u);
  EXPECT_EQ(edge_segment({SIZE_MAX, true}, true, true), SIZE_MAX);  // no overflow
  // Two ranks: the only edge is root to leaf.
  const TreeLinks leaf = binomial_tree(1, 2, 0);
  EXPECT_TRUE(leaf.parent_is_root);
  EXPECT_EQ(incoming_segment(leaf, {100, true}), 200u);
  EXPECT_EQ(outgoing_segment(binomial_tree(0, 2, 0), 0, {100, true}), 200u);
  // Chain of four: root -> 1 -> 2 -> 3; only the last edge reaches a leaf, not from the root.
  EXPECT_EQ(chain_tree(0, 4, 0).child_sizes, std::vector<int>{3});
  EXPECT_EQ(incoming_segment(chain_tree(3, 4, 0), {100, true}), 100u);
}

TEST(ForwardPieces, AMessageThatFitsInTwoEagerPiecesGoesInTwoHalves) {
  constexpr std::size_t E = 256 << 10, segment = 512 << 10;
  auto cut = [&](std::size_t bytes) { return forward_pieces(bytes, segment, E); };
  // At most the eager limit: the caller's segment (one piece), doubled
  // from the root to a leaf as before.
  EXPECT_EQ(cut(E).segment, segment);
  EXPECT_TRUE(cut(E).double_root_leaf);
  // Just above it, up to twice it: halves, the larger first, never doubled.
  for (std::size_t bytes : {E + 1, E + 4, 3 * E / 2 + 1, 2 * E - 1, 2 * E}) {
    const ForwardPieces p = cut(bytes);
    EXPECT_EQ(p.segment, bytes - bytes / 2) << bytes;
    EXPECT_LE(p.segment, E) << bytes;
    EXPECT_EQ(segment_count(bytes, p.segment), 2u) << bytes;
    EXPECT_FALSE(p.double_root_leaf) << bytes;
  }
  // Beyond twice it: the caller's segment, doubled as before.
  EXPECT_EQ(cut(2 * E + 1).segment, segment);
  EXPECT_TRUE(cut(2 * E + 1).double_root_leaf);
  // A segment already eager is kept; it doubles only while doubled pieces stay eager.
  EXPECT_EQ(forward_pieces(E + 4, 64 << 10, E).segment, 64u << 10);
  EXPECT_TRUE(forward_pieces(4 * E, 128 << 10, E).double_root_leaf);  // 256 KiB pieces: still eager
  EXPECT_FALSE(forward_pieces(4 * E, 200 << 10, E).double_root_leaf);  // 400 KiB would not be
  // No eager limit known: the caller's segment.
  EXPECT_EQ(forward_pieces(E + 4, segment, 0).segment, segment);
  EXPECT_TRUE(forward_pieces(E + 4, segment, 0).double_root_leaf);
}

TEST(RingSegment, AChunkThatFitsInTwoEagerPiecesGoesInTwoHalvesUnlessRanksShareCores) {
  constexpr std::size_t E = 256 << 10, segment = 512 << 10;
  // Whole elements of the caller's segment, at most the chunk.
  EXPECT_EQ(ring_segment(1000, 4, segment, E, false), 1000u);
  EXPECT_EQ(ring_segment(1 << 20, 4, segment, E, false), segment / 4);
  EXPECT_EQ(ring_segment(1000, 8, 12, E, false), 1u);
  for (std::size_t element_size : {1, 2, 4, 8}) {
    const std::size_t at_limit = E / element_size;
    for (std::size_t chunk : {at_limit + 1, at_limit + at_limit / 2 + 1, 2 * at_limit - 1, 2 * at_limit}) {
      const std::size_t half = ring_segment(chunk, element_size, segment, E, false);
      EXPECT_LE(half * element_size, E) << chunk << " x " << element_size;
      EXPECT_EQ(segment_count(chunk, half), 2u) << chunk << " x " << element_size;
      // Ranks sharing cores: one rendezvous piece.
      EXPECT_EQ(ring_segment(chunk, element_size, segment, E, true), chunk) << chunk << " x " << element_size;
    }
    EXPECT_EQ(ring_segment(at_limit, element_size, segment, E, false), at_limit);  // eager already
    EXPECT_EQ(ring_segment(2 * at_limit + 1, element_size, segment, E, false), segment / element_size);
  }
  // A segment already eager, or no eager limit: the caller's segment.
  EXPECT_EQ(ring_segment(E / 4 + 100, 4, 64 << 10, E, false), (64u << 10) / 4);
  EXPECT_EQ(ring_segment(E / 4 + 100, 4, segment, 0, false), E / 4 + 100);
  EXPECT_EQ(ring_segment(0, 4, segment, E, false), 0u);
}

// Knowledge spreads: after ceil(log2 n) rounds every rank has (transitively)
// heard from every rank.
TEST(Dissemination, EveryRankHearsFromEveryRank) {
  for (int size = 1; size <= 64; ++size) {
    std::vector<std::set<int>> heard(size);
    for (int r = 0; r < size; ++r) heard[r] = {r};
    for (int round = 0; round < ceil_log2(size); ++round) {
      auto next = heard;
      for (int r = 0; r < size; ++r) {
        const RoundPeers peers = dissemination_peers(r, size, round);
        ASSERT_EQ(dissemination_peers(peers.to, size, round).from, r);
        next[r].insert(heard[peers.from].begin(), heard[peers.from].end());
      }
      heard = next;
    }
    for (int r = 0; r < size; ++r) ASSERT_EQ(static_cast<int>(heard[r].size()), size) << "size " << size;
  }
}

}  // namespace
}  // namespace rcoll::collectives
