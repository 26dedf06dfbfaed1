// This process's memory use, from /proc/self/status.
#pragma once

#include <cstdint>

namespace rcoll::soak {

struct MemoryStatus {
  std::uint64_t rss_kib = 0;  // VmRSS: resident now
  std::uint64_t hwm_kib = 0;  // VmHWM: peak resident since the process started
  // Bytes the C allocator has handed out and not yet got back (glibc
  // mallinfo2: arena + mmapped chunks in use), in KiB: unlike RSS, free
  // memory the allocator keeps does not count, so a leak shows here first.
  std::uint64_t heap_kib = 0;
};

// Zeros where /proc/self/status cannot be read (not Linux).
MemoryStatus read_memory_status();

// True when `end` exceeds `start` by more than percent % + mib MiB.
bool grew_beyond(std::uint64_t start_kib, std::uint64_t end_kib, double percent, double mib);

}  // namespace rcoll::soak
