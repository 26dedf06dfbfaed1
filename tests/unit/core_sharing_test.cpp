// CoreSharing: how many CPUs the ranks of this host share, and the spin
// mode that follows from it.
#include <gtest/gtest.h>

#include <sched.h>
#include <sys/sysinfo.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "comm/core_sharing.hpp"

namespace rcoll::comm {
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
TEST(CoreSharing, HostCpusIgnoreTheAffinityMaskOfTheCaller) {
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
  const int bound = CoreSharing::host_cpus();
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(bound, CoreSharing::host_cpus());
  if (get_nprocs() > 1) {
    EXPECT_GT(bound, 1) << "a bound caller counted only its own CPU";
  }
}

// The count is the CPUs the cpuset cgroup allows, read
// here from the cgroup files as an independent oracle, never the
// machine's online CPUs when a cpuset narrows them.
TEST(CoreSharing, HostCpusAreTheCgroupsAllowedCpus) {
  const int online = get_nprocs();
  EXPECT_GE(CoreSharing::host_cpus(), 1);
  EXPECT_LE(CoreSharing::host_cpus(), online);
  const std::string effective = cgroup_effective_cpus();
  if (effective.empty()) {
    GTEST_SKIP() << "no cpuset cgroup file for this process; the bounds above were checked";
  }
  const std::set<int> allowed = parse_cpu_list(effective);
  const std::set<int> present = parse_cpu_list(read_line("/sys/devices/system/cpu/online"));
  int usable = 0;
  for (int cpu : allowed) usable += present.count(cpu) > 0 ? 1 : 0;
  EXPECT_EQ(CoreSharing::host_cpus(), usable) << "cpuset.cpus.effective: " << effective;
}

TEST(CoreSharing, RanksBeyondTheCpusYield) {
  const int cpus = CoreSharing::host_cpus();
  EXPECT_EQ(CoreSharing(cpus).spin_mode(), transport::SpinMode::pure);
  EXPECT_EQ(CoreSharing(cpus + 1).spin_mode(), transport::SpinMode::yield);
  CoreSharing first(cpus);  // two communicators of `cpus` ranks each
  EXPECT_EQ(CoreSharing(cpus).spin_mode(), transport::SpinMode::yield);
}

TEST(CoreSharing, BcastTreesAlternateCoresOnlyWhenAllRanksShareAnEvenNumberOfCpus) {
  using collectives::TreeLayout;
  EXPECT_EQ(CoreSharing::tree_layout(4, 4, 2), TreeLayout::alternating);
  EXPECT_EQ(CoreSharing::tree_layout(5, 5, 4), TreeLayout::alternating);
  EXPECT_EQ(CoreSharing::tree_layout(2, 2, 2), TreeLayout::contiguous);  // a core each
  EXPECT_EQ(CoreSharing::tree_layout(6, 6, 3), TreeLayout::contiguous);  // odd: parity does not split cores
  EXPECT_EQ(CoreSharing::tree_layout(8, 4, 2), TreeLayout::contiguous);  // ranks on other hosts
}

TEST(CoreSharing, RanksShareCoresOnlyWhenAllAreOnAHostWithFewerCpus) {
  EXPECT_TRUE(CoreSharing::ranks_share_cores(4, 4, 2));
  EXPECT_TRUE(CoreSharing::ranks_share_cores(3, 3, 2));
  EXPECT_FALSE(CoreSharing::ranks_share_cores(2, 2, 2));  // a core each
  EXPECT_FALSE(CoreSharing::ranks_share_cores(8, 4, 2));  // other hosts: not known alike on every rank
}

}  // namespace
}  // namespace rcoll::comm
