// this_host(): the identity that tells hosts apart and the CPUs a job may
// use there, both published on every rank's join card.
#include <gtest/gtest.h>

#include <sched.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "topology/host.hpp"

namespace rcoll::topology {
namespace {

// The CPUs of a Linux cpu list such as "0-3,8,10-11".
std::set<int> parse_cpu_list(const std::string& text) {
  std::set<int> cpus;
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    if (item.empty() || item == "\n") continue;
    const auto dash = item.find('-');
    const int first = std::stoi(item.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(item.substr(dash + 1));
    for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
  }
  return cpus;
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The CPU list this process's cpuset cgroup allows, or "" when there is
// none to read: cgroup v1 ("N:cpuset:/path", cpuset.effective_cpus) or v2
// ("0::/path", cpuset.cpus.effective).
std::string cgroup_effective_cpus() {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const auto v1 = line.find(":cpuset:");
    if (v1 != std::string::npos) {
      std::string cpus = read_line("/sys/fs/cgroup/cpuset" + line.substr(v1 + 8) + "/cpuset.effective_cpus");
      if (!cpus.empty()) return cpus;
    }
    if (line.rfind("0::", 0) == 0) {
      std::string cpus = read_line("/sys/fs/cgroup" + line.substr(3) + "/cpuset.cpus.effective");
      if (!cpus.empty()) return cpus;
    }
  }
  return "";
}

// The count does not follow the thread's affinity: a rank that binds
// itself to one core (as rcoll-run's placement does) still sees the host.
TEST(ThisHost, HostCpusIgnoreTheAffinityMaskOfTheCaller) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &before)) {
      CPU_SET(cpu, &one);
      break;
    }
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const int bound = this_host().cpus;
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(bound, this_host().cpus);
  if (get_nprocs() > 1) {
    EXPECT_GT(bound, 1) << "a bound caller counted only its own CPU";
  }
}

// The count is the CPUs the cpuset cgroup allows, read
// here from the cgroup files as an independent oracle, never the
// machine's online CPUs when a cpuset narrows them.
TEST(ThisHost, HostCpusAreTheCgroupsAllowedCpus) {
  const int online = get_nprocs();
  EXPECT_GE(this_host().cpus, 1);
  EXPECT_LE(this_host().cpus, online);
  const std::string effective = cgroup_effective_cpus();
  if (effective.empty()) {
    GTEST_SKIP() << "no cpuset cgroup file for this process; the bounds above were checked";
  }
  const std::set<int> allowed = parse_cpu_list(effective);
  const std::set<int> present = parse_cpu_list(read_line("/sys/devices/system/cpu/online"));
  int usable = 0;
  for (int cpu : allowed) usable += present.count(cpu) > 0 ? 1 : 0;
  EXPECT_EQ(this_host().cpus, usable) << "cpuset.cpus.effective: " << effective;
}

// The identity is what ranks compare to find their host's other ranks:
// the same on every call and thread of a process, and made of the parts
// that tell machines and IPC namespaces apart.
TEST(ThisHost, IdentityNamesTheBootTheHostnameAndTheIpcNamespace) {
  const std::string identity = this_host().identity;
  std::string from_thread;
  std::thread([&] { from_thread = this_host().identity; }).join();
  EXPECT_EQ(identity, from_thread);
  const std::string boot_id = read_line("/proc/sys/kernel/random/boot_id");
  ASSERT_FALSE(boot_id.empty());
  EXPECT_EQ(identity.rfind(boot_id + "/", 0), 0u) << identity;
  char name[256] = {};
  ASSERT_EQ(gethostname(name, sizeof name - 1), 0);
  EXPECT_NE(identity.find("/" + std::string(name) + "/ipc:"), std::string::npos) << identity;
  EXPECT_GT(identity.size(), identity.find("/ipc:") + 5) << "no IPC namespace inode: " << identity;
}

}  // namespace
}  // namespace rcoll::topology
