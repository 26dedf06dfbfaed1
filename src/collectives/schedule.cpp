#include "collectives/schedule.hpp"

#include <algorithm>
#include <bit>

namespace rcoll::collectives {
namespace {

// Part `index` of `count` elements cut into `parts` (>= 1) runs in order,
// the first count % parts of them one element longer.
Range even_part(std::size_t count, std::size_t parts, std::size_t index) {
  const std::size_t base = count / parts;
  const std::size_t extra = count % parts;
  return {index * base + std::min(index, extra), base + (index < extra ? 1 : 0)};
}

}  // namespace

Range ring_chunk(std::size_t count, int parts, int index) {
  return even_part(count, static_cast<std::size_t>(parts), static_cast<std::size_t>(index));
}

std::size_t segment_count(std::size_t count, std::size_t segment) {
  return count / segment + (count % segment != 0 ? 1 : 0);
}

Range segment_range(std::size_t count, std::size_t segment, std::size_t index) {
  if (count == 0) return {};
  return even_part(count, segment_count(count, segment), index);
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

TreeLinks binomial_tree(int rank, int size, int root) {
  const auto rank_at = [&](int relative) { return wrap(relative + root, size); };
  const int v = wrap(rank - root, size);
  TreeLinks links;
  if (v != 0) links.parent = rank_at(v & (v - 1));
  // At most one child per bit below v's lowest set bit (every bit for the
  // root): sized once, as small collectives build a tree per call.
  const int bound = v == 0 ? ceil_log2(size) : std::countr_zero(static_cast<unsigned>(v));
  if (bound > 0) links.children.reserve(static_cast<std::size_t>(bound));
  for (int mask = 1; mask < size; mask <<= 1) {
    if (v & mask) break;
    if (v + mask < size) links.children.push_back(rank_at(v + mask));
  }
  return links;
}

int binomial_subtree_size(int relative, int size) {
  if (relative == 0) return size;
  const int lowest_bit = relative & -relative;
  return std::min(lowest_bit, size - relative);
}

SplitRun relative_run(int first, int count, int root, int size) {
  const int start = wrap(first + root, size);
  const int head = std::min(count, size - start);
  return {{static_cast<std::size_t>(start), static_cast<std::size_t>(head)},
          {0, static_cast<std::size_t>(count - head)}};
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

HalvingStep halving_step(int rank, int pof2, int step) {
  const int d = pof2 >> (step + 1);
  const int low = rank & ~(2 * d - 1);  // the first of the 2d virtual blocks of this step
  const auto kept = static_cast<std::size_t>(low + (rank & d));
  const auto given = static_cast<std::size_t>(low + (d - (rank & d)));
  const auto half = static_cast<std::size_t>(d);
  return {rank ^ d, {kept, half}, {given, half}};
}

std::size_t run_segment(std::size_t run, std::size_t element_size, std::size_t segment_bytes) {
  return std::min(segment_elements(segment_bytes, element_size), run);
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
  if (chain.next >= 0) links.children.push_back(chain.next);
  return links;
}

}  // namespace rcoll::collectives
