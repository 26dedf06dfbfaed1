#include "memory.hpp"

#include <fstream>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sstream>
#include <string>

namespace rcoll::soak {

MemoryStatus read_memory_status() {
  MemoryStatus status;
  std::ifstream file("/proc/self/status");
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream fields(line);
    std::string name;
    std::uint64_t kib = 0;
    fields >> name >> kib;  // "VmRSS:     12345 kB"
    if (name == "VmRSS:") status.rss_kib = kib;
    if (name == "VmHWM:") status.hwm_kib = kib;
  }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  const struct mallinfo2 info = ::mallinfo2();
  status.heap_kib = (info.uordblks + info.hblkhd) / 1024;
#endif
  return status;
}

bool grew_beyond(std::uint64_t start_kib, std::uint64_t end_kib, double percent, double mib) {
  const double bound = static_cast<double>(start_kib) * (1 + percent / 100) + mib * 1024;
  return static_cast<double>(end_kib) > bound;
}

}  // namespace rcoll::soak
