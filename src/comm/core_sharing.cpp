#include "comm/core_sharing.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "topology/topology.hpp"

namespace rcoll::comm {
namespace {

std::atomic<int> live_communicators{0};

}  // namespace

int CoreSharing::host_cpus() noexcept {
  // hwloc leaves out the CPUs that a cgroup cpuset (a container) forbids,
  // and it ignores the affinity mask, so a rank bound to one core still
  // counts them all. hardware_concurrency() counts the machine's online
  // CPUs: a container of 2 CPUs on 64 would look like 64.
  static const int cpus = [] {
    try {
      return std::max(1, topology::this_machine().pu_count());
    } catch (const std::exception&) {
      return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    }
  }();
  return cpus;
}

bool CoreSharing::ranks_share_cores(int size, int local_size, int cpus) noexcept {
  return local_size == size && size > cpus;
}

collectives::TreeLayout CoreSharing::tree_layout(int size, int local_size, int cpus) noexcept {
  const bool alternating = ranks_share_cores(size, local_size, cpus) && cpus % 2 == 0;
  return alternating ? collectives::TreeLayout::alternating : collectives::TreeLayout::contiguous;
}

CoreSharing::CoreSharing(int local_size) noexcept : local_size_(std::max(1, local_size)) {
  live_communicators.fetch_add(1, std::memory_order_relaxed);
}

CoreSharing::~CoreSharing() { live_communicators.fetch_sub(1, std::memory_order_relaxed); }

transport::SpinMode CoreSharing::spin_mode() const noexcept {
  long ranks = static_cast<long>(local_size_) * live_communicators.load(std::memory_order_relaxed);
  return ranks > host_cpus() ? transport::SpinMode::yield : transport::SpinMode::pure;
}

}  // namespace rcoll::comm
