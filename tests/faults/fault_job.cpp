// The job the failure-injection suite (test_faults.py) runs. Public API only.
//
//   rcoll_fault_job join
//       Comm::from_env(), one barrier, print "joined rank R of N", exit 0.
//       On an rcoll error: print "error <class> after <S> s: <what>" on
//       stdout and exit 5 (the suite checks class, text and time).
//   rcoll_fault_job kill VICTIM PHASE DELAY_MS [HOLD_MS]
//       Rank VICTIM SIGKILLs itself at a point of PHASE:
//         join      DELAY_MS after start, while in Comm::from_env (rank
//                   (VICTIM+1) % N waits HOLD_MS before joining, so the job
//                   is still forming when the victim dies);
//         connect   DELAY_MS after from_env returned, while the first
//                   collectives open the rank-to-rank connections;
//         transfer  DELAY_MS into its third allreduce of 8 MiB.
//       It prints "rank K raising SIGKILL at T" first. The others ignore
//       SIGTERM (the launcher's stop must not end them before they report;
//       except in the join phase, where they may be waiting on the bootstrap
//       service), run allreduces of 8 MiB, and on an rcoll error print
//       "rank R caught <class> at T: <what>", stay 1 s (so that a rank still
//       waiting hears of the victim rather than of this rank's exit) and
//       exit 4. T: wall-clock seconds.
#include <signal.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <rcoll/rcoll.hpp>

#include "../support/self_kill.hpp"

namespace {

using rcoll::test::kill_self_after;
using rcoll::test::wall_seconds;

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const char* class_of(const rcoll::Error& e) {
  if (dynamic_cast<const rcoll::TimeoutError*>(&e)) return "TimeoutError";
  if (dynamic_cast<const rcoll::IoError*>(&e)) return "IoError";
  if (dynamic_cast<const rcoll::InvalidArgument*>(&e)) return "InvalidArgument";
  return "Error";
}

int env_int(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::atoi(value) : -1;
}

int run_join() {
  const auto start = Clock::now();
  try {
    rcoll::Comm comm = rcoll::Comm::from_env();
    comm.barrier();
    std::printf("joined rank %d of %d\n", comm.rank(), comm.size());
    return 0;
  } catch (const rcoll::Error& e) {
    std::printf("error %s after %.3f s: %s\n", class_of(e), std::chrono::duration<double>(Clock::now() - start).count(),
                e.what());
    return 5;
  }
}

int run_kill(int victim, const std::string& phase, int delay_ms, int hold_ms) {
  const int rank = env_int("RCOLL_RANK");
  const int size = env_int("RCOLL_SIZE");
  const bool is_victim = rank == victim;
  const auto delay = std::chrono::milliseconds(delay_ms);
  if (!is_victim && phase != "join") ::signal(SIGTERM, SIG_IGN);
  if (is_victim && phase == "join") kill_self_after(victim, delay);
  if (!is_victim && phase == "join" && rank == (victim + 1) % size) std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
  std::vector<float> data(std::size_t{2} << 20, 1.0f);  // 8 MiB
  try {
    rcoll::Comm comm = rcoll::Comm::from_env();
    if (is_victim && phase == "connect") kill_self_after(victim, delay);
    for (int i = 0; i < 1000; ++i) {
      if (is_victim && phase == "transfer" && i == 2) kill_self_after(victim, delay);
      comm.allreduce(std::span<float>(data), rcoll::ReduceOp::sum);
    }
    std::printf("rank %d: 1000 allreduces completed without rank %d\n", rank, victim);
    return 1;
  } catch (const rcoll::Error& e) {
    std::printf("rank %d caught %s at %.6f: %s\n", rank, class_of(e), wall_seconds(), e.what());
    std::fflush(stdout);
    std::this_thread::sleep_for(1s);
    return 4;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc == 2 && std::strcmp(argv[1], "join") == 0) return run_join();
  if ((argc == 5 || argc == 6) && std::strcmp(argv[1], "kill") == 0)
    return run_kill(std::atoi(argv[2]), argv[3], std::atoi(argv[4]), argc == 6 ? std::atoi(argv[5]) : 0);
  std::fprintf(stderr, "usage: rcoll_fault_job join | kill VICTIM join|connect|transfer DELAY_MS [HOLD_MS]\n");
  return 2;
}
