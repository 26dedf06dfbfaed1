#include "diagnostics/rank_list.hpp"

#include <vector>

namespace rcoll::diagnostics {

std::string join_ranks(std::span<const int> ranks) {
  // Runs of 3 or more consecutive ranks become "a-b".
  std::vector<std::string> items;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (j - i >= 2) {
      items.push_back(std::to_string(ranks[i]) + "-" + std::to_string(ranks[j]));
    } else {
      for (std::size_t k = i; k <= j; ++k) items.push_back(std::to_string(ranks[k]));
    }
    i = j + 1;
  }
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += i + 1 == items.size() ? " and " : ", ";
    text += items[i];
  }
  return text;
}

std::string name_ranks(std::span<const int> ranks) {
  if (ranks.empty()) return "no rank";
  bool one = ranks.size() == 1;
  return (one ? "rank " : "ranks ") + join_ranks(ranks);
}

}  // namespace rcoll::diagnostics
