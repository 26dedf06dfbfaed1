// Which ranks of a job share a host, read from every rank's join card (the
// host identity it published), so that every rank sees the same layout
// whatever its launcher's per-rank variables say.
#pragma once

#include <vector>

#include "comm/rank_card.hpp"

namespace rcoll::comm {

struct HostLayout {
  int local_rank = 0;  // this rank's index among the ranks of its host, in rank order
  int local_size = 1;  // ranks of the job on this rank's host
  int hosts = 1;       // distinct hosts of the job
  // > 0: every rank runs on one host whose CPUs (this many) are fewer than
  // the ranks, so ranks take turns on cores (tuning/costs.hpp); else 0.
  // The same on every rank.
  int shared_cores = 0;
};

HostLayout host_layout(const std::vector<RankCard>& cards, int self);

}  // namespace rcoll::comm
