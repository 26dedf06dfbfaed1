#include "topology/host.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <fstream>
#include <thread>

#include "topology/topology.hpp"

namespace rcoll::topology {
namespace {

std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

std::string ipc_namespace() {
  struct stat info {};
  if (::stat("/proc/self/ns/ipc", &info) != 0) return {};
  return std::to_string(info.st_ino);
}

int allowed_cpus() {
  // hardware_concurrency() counts the machine's online CPUs: a container of
  // 2 CPUs on 64 would look like 64. It is the fallback when hwloc fails.
  try {
    return std::max(1, this_machine().pu_count());
  } catch (const std::exception&) {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
}

}  // namespace

const Host& this_host() {
  static const Host host{first_line("/proc/sys/kernel/random/boot_id") + "/" + hostname() + "/ipc:" + ipc_namespace(),
                         allowed_cpus()};
  return host;
}

}  // namespace rcoll::topology
