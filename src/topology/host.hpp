// This host as a job sees it: an identity that two ranks share exactly when
// they run on the same machine (and can share memory), and the CPUs the job
// may use there. Every rank publishes both when it joins, so that which
// ranks share a host is decided from facts every rank has, never from a
// launcher's per-rank variables (LOCAL_RANK, LOCAL_WORLD_SIZE).
#pragma once

#include <string>

namespace rcoll::topology {

struct Host {
  // "<boot id>/<hostname>/ipc:<namespace inode>": the kernel's boot id tells
  // machines (and reboots) apart where hostnames repeat (containers); the
  // IPC namespace tells apart containers of one kernel that cannot share
  // memory. A part that cannot be read is left empty, never guessed.
  std::string identity;
  // hwloc's allowed PUs: a cgroup cpuset (a container) narrows them, a
  // rank's own binding does not, so every rank of the host counts the same.
  int cpus = 1;
};

// Read once per process (thread-safe); never throws.
const Host& this_host();

}  // namespace rcoll::topology
