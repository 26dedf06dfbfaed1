// A small job for the multi-process tests.
//   rcoll_test_job ok          every collective once, checked; prints "ok rank R of N"
//   rcoll_test_job exit K      rank K exits with status 3 right after joining;
//                              the others enter an allreduce, print the error
//                              they get ("rank R caught: ...") and exit 4
//   rcoll_test_job kill K [MS] [allreduce|bcast]
//                              rank K SIGKILLs itself MS ms (default 50) into
//                              its third allreduce (or bcast) of 4 MiB, printing
//                              "rank K raising SIGKILL at T" first; the others
//                              ignore SIGTERM (the launcher's stop must not
//                              end them before they report), print
//                              "rank R caught at T: <error>", stay 1 s (so
//                              that a rank still waiting hears of the victim
//                              rather than of this rank's exit) and exit 4.
//                              T: wall-clock seconds, for tests/rdma/kill-check.sh
//   rcoll_test_job abort K     rank K calls comm.abort("rank K gives up") in its
//                              third allreduce round; the others behave as
//                              in kill mode ("rank R caught at T: <error>")
//   rcoll_test_job hang K S    after a barrier, rank K sleeps S seconds outside
//                              any rcoll call, then exits 0; the others ignore
//                              SIGTERM, print "rank R entering allreduce",
//                              enter one, and print "rank R caught: <error>"
//                              (then stay 1 s and exit 4) or "rank R completed"
//                              (exit 0)
//   rcoll_test_job ring BYTES  after a barrier, every rank sends BYTES to the
//                              next rank before it receives from the previous
//                              one (a circular wait above the eager limit);
//                              ignores SIGTERM, prints "rank R caught: <error>"
//                              (then stays 1 s and exits 4) or "rank R
//                              completed" (exit 0)
#include <signal.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include <rcoll/rcoll.hpp>

#include "../support/self_kill.hpp"

namespace {

using rcoll::test::kill_self_after;
using rcoll::test::wall_seconds;

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

enum class Fault { kill, abort };

int run_fault(rcoll::Comm& comm, Fault fault, int victim, int delay_ms, bool bcast) {
  const bool is_victim = comm.rank() == victim;
  if (!is_victim) ::signal(SIGTERM, SIG_IGN);
  std::vector<float> data(std::size_t(1) << 20, 1.0f);
  try {
    for (int i = 0; i < 1000; ++i) {
      if (is_victim && i == 2 && fault == Fault::kill) kill_self_after(victim, std::chrono::milliseconds(delay_ms));
      if (is_victim && i == 2 && fault == Fault::abort) comm.abort("rank " + std::to_string(victim) + " gives up");
      if (bcast) comm.bcast(std::span<float>(data), (victim + 1) % comm.size());
      else comm.allreduce(std::span<float>(data), rcoll::ReduceOp::sum);
    }
    std::printf("rank %d: 1000 collectives completed without rank %d\n", comm.rank(), victim);
    return 1;
  } catch (const rcoll::Error& e) {
    std::printf("rank %d caught at %.6f: %s\n", comm.rank(), wall_seconds(), e.what());
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    return 4;
  }
}

// Runs `calls`: prints "rank R completed" and returns 0, or prints "rank R
// caught: <error>", stays 1 s (so that the others can still read what this
// rank published) and returns 4.
template <typename Calls>
int report_outcome(rcoll::Comm& comm, Calls&& calls) {
  try {
    calls();
    std::printf("rank %d completed\n", comm.rank());
    return 0;
  } catch (const rcoll::Error& e) {
    std::printf("rank %d caught: %s\n", comm.rank(), e.what());
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    return 4;
  }
}

int run_hang(rcoll::Comm& comm, int sleeper, int seconds) {
  comm.barrier();
  if (comm.rank() == sleeper) {
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    std::printf("rank %d slept %d s\n", sleeper, seconds);
    return 0;
  }
  ::signal(SIGTERM, SIG_IGN);
  std::vector<float> data(4096, 1.0f);
  std::printf("rank %d entering allreduce\n", comm.rank());
  std::fflush(stdout);
  return report_outcome(comm, [&] { comm.allreduce(std::span<float>(data), rcoll::ReduceOp::sum); });
}

int run_ring(rcoll::Comm& comm, std::size_t bytes) {
  comm.barrier();
  ::signal(SIGTERM, SIG_IGN);
  const int next = (comm.rank() + 1) % comm.size(), prev = (comm.rank() + comm.size() - 1) % comm.size();
  std::vector<std::uint8_t> out(bytes, 1), in(bytes);
  return report_outcome(comm, [&] {
    comm.send(std::span<const std::uint8_t>(out), next, 3);
    comm.recv(std::span<std::uint8_t>(in), prev, 3);
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: rcoll_test_job ok | exit RANK | kill RANK [DELAY_MS [allreduce|bcast]] | abort RANK |"
                 " hang RANK SECONDS | ring BYTES\n");
    return 2;
  }
  try {
    rcoll::Comm comm = rcoll::Comm::from_env();
    if (std::strcmp(argv[1], "ok") == 0) return run_ok(comm);
    if (std::strcmp(argv[1], "exit") == 0 && argc == 3) return run_exit(comm, std::atoi(argv[2]));
    if (std::strcmp(argv[1], "kill") == 0 && argc >= 3 && argc <= 5)
      return run_fault(comm, Fault::kill, std::atoi(argv[2]), argc >= 4 ? std::atoi(argv[3]) : 50,
                       argc == 5 && std::strcmp(argv[4], "bcast") == 0);
    if (std::strcmp(argv[1], "abort") == 0 && argc == 3)
      return run_fault(comm, Fault::abort, std::atoi(argv[2]), 0, false);
    if (std::strcmp(argv[1], "hang") == 0 && argc == 4)
      return run_hang(comm, std::atoi(argv[2]), std::atoi(argv[3]));
    if (std::strcmp(argv[1], "ring") == 0 && argc == 3)
      return run_ring(comm, static_cast<std::size_t>(std::atoll(argv[2])));
    std::fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
  } catch (const rcoll::Error& e) {
    std::fprintf(stderr, "rcoll error: %s\n", e.what());
    return 5;
  }
}
