// Whether this rank may be sharing a core with another rank, which decides
// how its waits spin (transport::SpinMode). A CoreSharing lives as long as
// its communicator and counts the communicators of this process, so ranks
// run as threads in one process are seen as well as launched processes.
#pragma once

#include "collectives/schedule.hpp"
#include "transport/wait.hpp"

namespace rcoll::comm {

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

  // How the bcast trees of a communicator of `size` ranks, `local_size` of
  // them on this host, place the ranks: `alternating` when all of them are
  // on a host of `cpus` CPUs, more of them than CPUs, and the CPUs even in
  // number; then ranks placed round robin (rcoll-run's --bind auto) have
  // every tree edge cross cores (schedule.hpp, TreeLayout). Reads no
  // per-process state, so every rank of the communicator gets the same.
  static collectives::TreeLayout tree_layout(int size, int local_size, int cpus = host_cpus()) noexcept;
  // Whether ranks of a communicator of `size` ranks, `local_size` of them on
  // this host, may share a core: all on a host of `cpus` CPUs and more of
  // them than CPUs. Like tree_layout, the same on every rank.
  static bool ranks_share_cores(int size, int local_size, int cpus = host_cpus()) noexcept;

 private:
  int local_size_;
};

}  // namespace rcoll::comm
