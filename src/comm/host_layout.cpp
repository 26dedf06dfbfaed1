#include "comm/host_layout.hpp"

#include <set>
#include <string>

namespace rcoll::comm {

HostLayout host_layout(const std::vector<RankCard>& cards, int self) {
  HostLayout layout;
  const std::string& mine = cards[static_cast<std::size_t>(self)].host;
  std::set<std::string> hosts;
  layout.local_size = 0;
  for (std::size_t r = 0; r < cards.size(); ++r) {
    hosts.insert(cards[r].host);
    if (cards[r].host != mine) continue;
    if (static_cast<int>(r) < self) ++layout.local_rank;
    ++layout.local_size;
  }
  layout.hosts = static_cast<int>(hosts.size());
  const int cpus = cards.front().host_cpus;
  if (layout.hosts == 1 && static_cast<int>(cards.size()) > cpus) layout.shared_cores = cpus;
  return layout;
}

}  // namespace rcoll::comm
