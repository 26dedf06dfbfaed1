#include "comm/core_sharing.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace rcoll::detail {
namespace {

std::atomic<int> live_communicators{0};

}  // namespace

int CoreSharing::host_cpus() noexcept {
  static const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return cpus;
}

CoreSharing::CoreSharing(int local_size) noexcept : local_size_(std::max(1, local_size)) {
  live_communicators.fetch_add(1, std::memory_order_relaxed);
}

CoreSharing::~CoreSharing() { live_communicators.fetch_sub(1, std::memory_order_relaxed); }

transport::SpinMode CoreSharing::spin_mode() const noexcept {
  long ranks = static_cast<long>(local_size_) * live_communicators.load(std::memory_order_relaxed);
  return ranks > host_cpus() ? transport::SpinMode::yield : transport::SpinMode::pure;
}

}  // namespace rcoll::detail
