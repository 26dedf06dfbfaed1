#include "transport/rdma/keep_alive.hpp"

#include <utility>

#include "common/log.hpp"

namespace rcoll::transport::rdma {

void KeepAlive::probe_if_quiet(Channel& channel, bool waiting) {
  auto interval = core_.options.keepalive_interval;
  if (interval.count() == 0 || probing_ || !waiting) return;
  auto now = std::chrono::steady_clock::now();
  if (std::exchange(heard_since_check_, false)) heard_ = now;
  if (now - heard_ < interval || !channel.can_write(false)) return;
  log::trace("rdma peer {}: quiet for {} ms with operations pending: keep-alive probe", peer_,
             std::chrono::duration_cast<std::chrono::milliseconds>(now - heard_).count());
  channel.probe();
  probing_ = true;
  ++core_.stats.keepalive_probes;
}

}  // namespace rcoll::transport::rdma
