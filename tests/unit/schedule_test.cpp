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

TEST(Segments, CutIntoTheFewestPiecesOfAtMostTheSegmentAsEvenAsCanBe) {
  EXPECT_EQ(segment_count(0, 4), 0u);
  EXPECT_EQ(segment_count(1, 4), 1u);
  EXPECT_EQ(segment_count(8, 4), 2u);
  EXPECT_EQ(segment_count(9, 4), 3u);
  // 9 in pieces of at most 4: 3 3 3, not 4 4 1.
  EXPECT_EQ(segment_range(9, 4, 0), (Range{0, 3}));
  EXPECT_EQ(segment_range(9, 4, 2), (Range{6, 3}));
  // Just above one segment: two halves, the longer first.
  EXPECT_EQ(segment_range(1025, 1024, 0), (Range{0, 513}));
  EXPECT_EQ(segment_range(1025, 1024, 1), (Range{513, 512}));
  EXPECT_EQ(segment_range(0, 4, 0), (Range{0, 0}));
  for (std::size_t count : {1, 5, 64, 1000, 1001}) {
    for (std::size_t segment : {1, 3, 64, 999, 2000}) {
      std::size_t next = 0, smallest = SIZE_MAX, largest = 0;
      for (std::size_t j = 0; j < segment_count(count, segment); ++j) {
        const Range seg = segment_range(count, segment, j);
        ASSERT_EQ(seg.offset, next);
        ASSERT_GT(seg.count, 0u);
        ASSERT_LE(seg.count, segment);
        smallest = std::min(smallest, seg.count);
        largest = std::max(largest, seg.count);
        next = seg.end();
      }
      ASSERT_EQ(next, count);
      ASSERT_LE(largest - smallest, 1u) << count << " in pieces of " << segment;
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
TEST(BinomialTree, IsASpanningTreeOfLogDepthForAnyRoot) {
  for (int size = 1; size <= 64; ++size) {
    for (int root = 0; root < size; ++root) {
      std::vector<TreeLinks> links;
      for (int r = 0; r < size; ++r) links.push_back(binomial_tree(r, size, root));
      ASSERT_EQ(links[root].parent, -1);
      std::vector<int> depth(size, -1), reached(size, 0), below(size, 1);
      std::queue<int> frontier;
      depth[root] = 0;
      frontier.push(root);
      std::vector<int> order;  // breadth first
      while (!frontier.empty()) {
        const int r = frontier.front();
        frontier.pop();
        ++reached[r];
        order.push_back(r);
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
      // binomial_subtree_size counts the ranks below each one, found here by walking up.
      for (auto it = order.rbegin(); it != order.rend(); ++it)
        if (links[*it].parent >= 0) below[links[*it].parent] += below[*it];
      for (int r = 0; r < size; ++r)
        ASSERT_EQ(below[r], binomial_subtree_size(wrap(r - root, size), size)) << "size " << size << " rank " << r;
    }
  }
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

TEST(RelativeRun, MapsRelativeRanksToRankOrderSplittingAtTheEnd) {
  for (int size = 1; size <= 9; ++size)
    for (int root = 0; root < size; ++root)
      for (int first = 0; first < size; ++first)
        for (int count = 0; count <= size; ++count) {
          const SplitRun run = relative_run(first, count, root, size);
          ASSERT_EQ(run.head.count + run.tail.count, static_cast<std::size_t>(count));
          ASSERT_LE(run.head.end(), static_cast<std::size_t>(size));
          ASSERT_EQ(run.tail.offset, 0u);
          if (run.tail.count > 0) {
            ASSERT_EQ(run.head.end(), static_cast<std::size_t>(size));
          }
          // Relative rank first + j is rank (first + j + root) mod size: j-th of head, then of tail.
          for (int j = 0; j < count; ++j) {
            const auto at = static_cast<std::size_t>(j) < run.head.count ? run.head.offset + j
                                                                           : run.tail.offset + (j - run.head.count);
            ASSERT_EQ(at, static_cast<std::size_t>(wrap(first + j + root, size)));
          }
        }
  // Root 5 of 8: relative ranks 2..5 are ranks 7, 0, 1, 2.
  EXPECT_EQ(relative_run(2, 4, 5, 8).head, (Range{7, 1}));
  EXPECT_EQ(relative_run(2, 4, 5, 8).tail, (Range{0, 3}));
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

// Partners are mutual and give each other what the other keeps; a rank's
// kept blocks shrink by halves within the previous ones; at the end every
// rank keeps its own virtual block, combined over every active rank once.
TEST(RecursiveHalving, EveryRankEndsWithItsOwnBlockCombinedOverAllRanks) {
  for (int pof2 : {1, 2, 4, 8, 32}) {
    // have[r][v]: the ranks whose data rank r has combined into virtual block v.
    std::vector<std::vector<std::multiset<int>>> have(pof2, std::vector<std::multiset<int>>(pof2));
    for (int r = 0; r < pof2; ++r)
      for (auto& block : have[r]) block.insert(r);
    std::vector<Range> kept(pof2, Range{0, static_cast<std::size_t>(pof2)});
    for (int step = 0; (1 << step) < pof2; ++step) {
      auto next = have;
      for (int r = 0; r < pof2; ++r) {
        const HalvingStep h = halving_step(r, pof2, step);
        const HalvingStep theirs = halving_step(h.partner, pof2, step);
        ASSERT_EQ(theirs.partner, r);
        ASSERT_EQ(theirs.give, h.keep);
        ASSERT_EQ(theirs.keep, h.give);
        ASSERT_EQ(h.keep.count, kept[r].count / 2);
        ASSERT_GE(h.keep.offset, kept[r].offset);
        ASSERT_LE(h.keep.end(), kept[r].end());
        for (std::size_t v = h.keep.offset; v < h.keep.end(); ++v)
          next[r][v].insert(have[h.partner][v].begin(), have[h.partner][v].end());
        kept[r] = h.keep;
      }
      have = next;
    }
    for (int r = 0; r < pof2; ++r) {
      ASSERT_EQ(kept[r], (Range{static_cast<std::size_t>(r), 1})) << pof2;
      std::multiset<int> all;
      for (int q = 0; q < pof2; ++q) all.insert(q);
      ASSERT_EQ(have[r][r], all) << pof2;
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

TEST(RunSegment, WholeElementsOfTheSegmentAtMostTheRun) {
  EXPECT_EQ(run_segment(1000, 4, 512 << 10), 1000u);
  EXPECT_EQ(run_segment(1 << 20, 4, 512 << 10), (512u << 10) / 4);
  EXPECT_EQ(run_segment(1000, 8, 12), 1u);
  EXPECT_EQ(run_segment(0, 4, 512 << 10), 0u);
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
