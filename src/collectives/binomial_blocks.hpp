// What the binomial gather and scatter share: a rank's subtree of the
// binomial tree (schedule.hpp) as a run of relative ranks, and the root's
// one child whose run wraps past the last rank.
//
// Every rank but the root keeps its subtree's blocks in relative order,
// contiguous, so that each tree edge carries one message. At the root a
// child's run lies in place in rank order, except for at most one child
// whose run wraps around the end of the buffer: only that child's blocks
// go through scratch (a copy of at most half the buffer, none at root 0).
#pragma once

#include <cstddef>
#include <vector>

#include "collectives/schedule.hpp"

namespace rcoll::collectives {

struct Subtree {
  int rank = 0;      // the child's rank
  int relative = 0;  // its rank relative to the root: its run starts there
  int ranks = 0;     // the ranks (blocks) of its subtree
};

// The children of `rank` as subtrees, the largest first.
inline std::vector<Subtree> child_subtrees(const TreeLinks& links, int size, int root) {
  std::vector<Subtree> children;
  children.reserve(links.children.size());
  for (auto child = links.children.rbegin(); child != links.children.rend(); ++child) {
    const int relative = wrap(*child - root, size);
    children.push_back({*child, relative, binomial_subtree_size(relative, size)});
  }
  return children;
}

// At the root: the index in `children` of the one whose run wraps, or -1.
inline int wrapping_child(const std::vector<Subtree>& children, int size, int root) {
  for (std::size_t i = 0; i < children.size(); ++i)
    if (relative_run(children[i].relative, children[i].ranks, root, size).tail.count > 0) return static_cast<int>(i);
  return -1;
}

}  // namespace rcoll::collectives
