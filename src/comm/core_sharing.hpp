// Whether this rank may be sharing a core with another rank, which decides
// how its waits spin (transport::SpinMode). A CoreSharing lives as long as
// its communicator and counts the communicators of this process, so ranks
// run as threads in one process are seen as well as launched processes.
#pragma once

#include "transport/wait.hpp"

namespace rcoll::detail {

class CoreSharing {
 public:
  // `local_size`: the job's processes on this host (Options::local_size).
  explicit CoreSharing(int local_size) noexcept;
  ~CoreSharing();
  CoreSharing(const CoreSharing&) = delete;
  CoreSharing& operator=(const CoreSharing&) = delete;

  // `yield` when the host's ranks (processes × communicators in this
  // process) outnumber its CPUs, else `pure`. Read per call: communicators
  // made or destroyed later change it.
  transport::SpinMode spin_mode() const noexcept;
  // The CPUs this host lets the job use: hwloc's allowed PUs (a cgroup
  // cpuset narrows them; a rank's own binding does not). The same on every
  // rank of the host, which the algorithm choice relies on. Counted once.
  static int host_cpus() noexcept;

 private:
  int local_size_;
};

}  // namespace rcoll::detail
