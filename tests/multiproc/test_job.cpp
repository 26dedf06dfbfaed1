// A small job for the multi-process tests.
//   rcoll_test_job ok          every collective once, checked; prints "ok rank R of N"
//   rcoll_test_job exit K      rank K exits with status 3 right after joining;
//                              the others enter an allreduce, print the error
//                              they get ("rank R caught: ...") and exit 4
//   rcoll_test_job kill K [MS] rank K SIGKILLs itself MS ms (default 50) into
//                              its third allreduce of 4 MiB, printing
//                              "rank K raising SIGKILL at T" first; the others
//                              ignore SIGTERM (the launcher's stop must not
//                              end them before they report), print
//                              "rank R caught at T: <error>", stay 1 s (so
//                              that a rank still waiting hears of the victim
//                              rather than of this rank's exit) and exit 4.
//                              T: wall-clock seconds, for tests/rdma/kill-check.sh
#include <signal.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include <rcoll/rcoll.hpp>

namespace {

int run_ok(rcoll::Comm& comm) {
  const int n = comm.size(), r = comm.rank();
  std::vector<std::int32_t> data(3001);
  std::iota(data.begin(), data.end(), r);
  comm.allreduce(std::span<std::int32_t>(data), rcoll::ReduceOp::sum);
  for (std::size_t i = 0; i < data.size(); ++i)
    if (data[i] != static_cast<std::int32_t>(n * i + n * (n - 1) / 2)) {
      std::printf("rank %d: allreduce mismatch at %zu\n", r, i);
      return 1;
    }
  std::vector<double> value(1000, r == n - 1 ? 2.5 : 0.0);
  comm.bcast(std::span<double>(value), n - 1);
  if (value[999] != 2.5) {
    std::printf("rank %d: bcast mismatch\n", r);
    return 1;
  }
  comm.barrier();
  std::printf("ok rank %d of %d\n", r, n);
  return 0;
}

int run_exit(rcoll::Comm& comm, int victim) {
  if (comm.rank() == victim) {
    std::printf("rank %d exiting with status 3\n", victim);
    std::fflush(stdout);
    std::_Exit(3);
  }
  std::vector<float> data(1 << 16, 1.0f);
  try {
    for (int i = 0; i < 100; ++i) comm.allreduce(std::span<float>(data), rcoll::ReduceOp::sum);
    std::printf("rank %d: allreduce completed without rank %d\n", comm.rank(), victim);
    return 1;
  } catch (const rcoll::Error& e) {
    std::printf("rank %d caught: %s\n", comm.rank(), e.what());
    return 4;
  }
}

// Wall-clock seconds: comparable between the processes of one host.
double wall_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// Kills this process `delay` from now, from another thread, so that the
// main thread is inside a collective when it dies.
void kill_self_after(int rank, std::chrono::milliseconds delay) {
  std::thread([rank, delay] {
    std::this_thread::sleep_for(delay);
    std::printf("rank %d raising SIGKILL at %.6f\n", rank, wall_seconds());
    std::fflush(stdout);
    ::raise(SIGKILL);
  }).detach();
}

int run_kill(rcoll::Comm& comm, int victim, int delay_ms) {
  const bool is_victim = comm.rank() == victim;
  if (!is_victim) ::signal(SIGTERM, SIG_IGN);
  std::vector<float> data(std::size_t(1) << 20, 1.0f);
  try {
    for (int i = 0; i < 1000; ++i) {
      if (is_victim && i == 2) kill_self_after(victim, std::chrono::milliseconds(delay_ms));
      comm.allreduce(std::span<float>(data), rcoll::ReduceOp::sum);
    }
    std::printf("rank %d: 1000 allreduces completed without rank %d\n", comm.rank(), victim);
    return 1;
  } catch (const rcoll::Error& e) {
    std::printf("rank %d caught at %.6f: %s\n", comm.rank(), wall_seconds(), e.what());
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    return 4;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: rcoll_test_job ok | exit RANK | kill RANK [DELAY_MS]\n");
    return 2;
  }
  try {
    rcoll::Comm comm = rcoll::Comm::from_env();
    if (std::strcmp(argv[1], "ok") == 0) return run_ok(comm);
    if (std::strcmp(argv[1], "exit") == 0 && argc == 3) return run_exit(comm, std::atoi(argv[2]));
    if (std::strcmp(argv[1], "kill") == 0 && (argc == 3 || argc == 4))
      return run_kill(comm, std::atoi(argv[2]), argc == 4 ? std::atoi(argv[3]) : 50);
    std::fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
  } catch (const rcoll::Error& e) {
    std::fprintf(stderr, "rcoll error: %s\n", e.what());
    return 5;
  }
}
