#include "collectives/schedule.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace rcoll::collectives {

Range ring_chunk(std::size_t count, int parts, int index) {
  const auto n = static_cast<std::size_t>(parts);
  const auto i = static_cast<std::size_t>(index);
  const std::size_t base = count / n;
  const std::size_t extra = count % n;
  return {i * base + std::min(i, extra), base + (i < extra ? 1 : 0)};
}

std::size_t segment_count(std::size_t count, std::size_t segment) {
  return count / segment + (count % segment != 0 ? 1 : 0);
}

Range segment_range(std::size_t count, std::size_t segment, std::size_t index) {
  const std::size_t offset = index * segment;
  return {offset, std::min(segment, count - offset)};
}

std::size_t segment_elements(std::size_t segment_bytes, std::size_t element_size) {
  return std::max<std::size_t>(1, segment_bytes / element_size);
}

int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

int wrap(int value, int n) {
  const int r = value % n;
  return r < 0 ? r + n : r;
}

int tree_position(int v, int size, TreeLayout layout) {
  if (layout == TreeLayout::contiguous) return v;
  const bool swap = (__builtin_popcount(static_cast<unsigned>(v >> 1)) & 1) != 0;
  return swap && (v ^ 1) < size ? v ^ 1 : v;
}

TreeLinks binomial_tree(int rank, int size, int root, TreeLayout layout) {
  const auto rank_at = [&](int position) { return wrap(tree_position(position, size, layout) + root, size); };
  const int v = tree_position(wrap(rank - root, size), size, layout);
  TreeLinks links;
  if (v != 0) links.parent = rank_at(v & (v - 1));
  links.parent_is_root = v != 0 && (v & (v - 1)) == 0;
  // At most one child per bit below v's lowest set bit (every bit for the
  // root): sized once, as small collectives build a tree per call.
  const int bound = v == 0 ? ceil_log2(size) : std::countr_zero(static_cast<unsigned>(v));
  if (bound > 0) {
    links.children.reserve(static_cast<std::size_t>(bound));
    links.child_sizes.reserve(static_cast<std::size_t>(bound));
  }
  for (int mask = 1; mask < size; mask <<= 1) {
    if (v & mask) break;
    if (v + mask < size) {
      links.children.push_back(rank_at(v + mask));
      links.child_sizes.push_back(binomial_subtree_size(v + mask, size));
    }
  }
  return links;
}

int binomial_subtree_size(int relative, int size) {
  if (relative == 0) return size;
  const int lowest_bit = relative & -relative;
  return std::min(lowest_bit, size - relative);
}

DoublingPlan doubling_plan(int rank, int size) {
  DoublingPlan plan;
  plan.pof2 = floor_pow2(size);
  plan.steps = ceil_log2(plan.pof2);
  const int extra = size - plan.pof2;
  if (rank >= plan.pof2) {
    plan.folded = true;
    plan.fold_partner = rank - plan.pof2;
  } else if (rank < extra) {
    plan.fold_partner = rank + plan.pof2;
  }
  return plan;
}

int doubling_partner(int rank, int step) { return rank ^ (1 << step); }

std::size_t ring_segment(std::size_t largest_chunk, std::size_t element_size, std::size_t segment_bytes,
                         std::size_t eager_limit, bool ranks_share_cores) {
  const std::size_t segment = std::min(segment_elements(segment_bytes, element_size), largest_chunk);
  if (ranks_share_cores || segment == 0) return segment;
  const ForwardPieces pieces = forward_pieces(largest_chunk * element_size, segment * element_size, eager_limit);
  return std::min(segment, (pieces.segment + element_size - 1) / element_size);
}

ForwardPieces forward_pieces(std::size_t bytes, std::size_t segment, std::size_t eager_limit) {
  ForwardPieces pieces{std::max<std::size_t>(segment, 1), true};
  if (eager_limit == 0) return pieces;
  if (bytes > eager_limit && bytes - bytes / 2 <= eager_limit && pieces.segment > eager_limit)
    pieces.segment = bytes - bytes / 2;  // the larger half: at most eager_limit
  const std::size_t doubled = pieces.segment > SIZE_MAX / 2 ? pieces.segment : 2 * pieces.segment;
  pieces.double_root_leaf = !(pieces.segment <= eager_limit && eager_limit < std::min(doubled, bytes));
  return pieces;
}

std::size_t edge_segment(const ForwardPieces& pieces, bool from_root, bool to_leaf) {
  const std::size_t segment = pieces.segment;
  if (!from_root || !to_leaf || !pieces.double_root_leaf) return segment;
  return segment > SIZE_MAX / 2 ? segment : 2 * segment;
}

std::size_t incoming_segment(const TreeLinks& links, const ForwardPieces& pieces) {
  return edge_segment(pieces, links.parent_is_root, links.children.empty());
}

std::size_t outgoing_segment(const TreeLinks& links, std::size_t child, const ForwardPieces& pieces) {
  const bool leaf = child < links.child_sizes.size() && links.child_sizes[child] == 1;
  return edge_segment(pieces, links.parent < 0, leaf);
}

ChainLinks chain_links(int rank, int size, int root) {
  const int v = wrap(rank - root, size);
  ChainLinks links;
  if (v > 0) links.prev = wrap(rank - 1, size);
  if (v + 1 < size) links.next = wrap(rank + 1, size);
  return links;
}

RoundPeers dissemination_peers(int rank, int size, int round) {
  const int distance = (1 << round) % size;
  return {wrap(rank + distance, size), wrap(rank - distance, size)};
}

TreeLinks chain_tree(int rank, int size, int root) {
  const ChainLinks chain = chain_links(rank, size, root);
  TreeLinks links;
  links.parent = chain.prev;
  links.parent_is_root = chain.prev >= 0 && chain.prev == root;
  if (chain.next >= 0) {
    links.children.push_back(chain.next);
    links.child_sizes.push_back(size - wrap(chain.next - root, size));
  }
  return links;
}

}  // namespace rcoll::collectives
