// For the job programs that test dying ranks (tests/multiproc/test_job.cpp,
// tests/faults/fault_job.cpp): timestamps and a SIGKILL of the process itself,
// printed in the form the checks parse ("rank R raising SIGKILL at T").
// Header-only: those programs link only the public library.
#pragma once

#include <signal.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace rcoll::test {

// Wall-clock seconds: comparable between the processes of one host.
inline double wall_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// SIGKILLs this process `delay` from now, from another thread, so that the
// main thread is inside the library when it dies.
inline void kill_self_after(int rank, std::chrono::milliseconds delay) {
  std::thread([rank, delay] {
    std::this_thread::sleep_for(delay);
    std::printf("rank %d raising SIGKILL at %.6f\n", rank, wall_seconds());
    std::fflush(stdout);
    ::raise(SIGKILL);
  }).detach();
}

}  // namespace rcoll::test
