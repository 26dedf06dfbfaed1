// Communicators with a progress thread (Options::progress ==
// Progress::thread; comm/progress_thread.hpp): an issued call moves while
// its rank calls nothing; the thread sleeps while it has nothing to move
// and while what it moves waits on a peer; a split shares its parent's
// thread and the last communicator's destruction ends it; blocking calls
// and point to point run there too. The i-calls of the whole set, their
// completion and their failures run with a progress thread in the
// comm_nonblocking*_test suites ("_thread" instances). Ranks as threads
// over TCP, in process and RDMA (in the Soft-RoCE guest).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"
#include "support/transport_fixture.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Ints = std::vector<std::int32_t>;

constexpr const char* progress_thread_name = "rcoll-progress";

// The threads of this process named rcoll-progress, by their /proc task folder.
std::vector<std::filesystem::path> progress_threads() {
  std::vector<std::filesystem::path> found;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name) && name == progress_thread_name) found.push_back(task.path());
  }
  return found;
}

// CPU time (user + system) a thread has used, from its /proc stat line.
std::chrono::milliseconds cpu_time(const std::filesystem::path& task) {
  std::ifstream stat(task / "stat");
  std::string line;
  std::getline(stat, line);
  // Fields after the name, which is in parentheses and may hold spaces:
  // state is field 3, utime 14 and stime 15.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  long long ticks = 0;
  for (int f = 3; f <= 15 && rest >> field; ++f)
    if (f >= 14) ticks += std::stoll(field);
  return std::chrono::milliseconds(ticks * 1000 / ::sysconf(_SC_CLK_TCK));
}

// Ranks as threads over a backend; `thread_ranks` of them (from rank 0) with a progress thread.
class ProgressThread : public test::OnBackend<std::string> {
 protected:
  void run(int size, int thread_ranks, const std::function<void(Comm&)>& body) {
    Options base;
    base.timeout = 30s;
    test::run_comm_ranks(GetParam(), size, base, body, [thread_ranks](Options& options) {
      if (options.rank < thread_ranks) options.progress = Progress::thread;
    });
  }
};

// Rank 0 issues an allreduce of several segments and then computes,
// calling nothing, until rank 1 is done or 5 s have passed; rank 1,
// without a progress thread, runs the same allreduce blocking. Rank 1 can
// only finish with rank 0's part, which only rank 0's progress thread can
// do while rank 0 computes (5 s: the allreduce takes milliseconds, or a
// few hundred in the emulated RDMA guest).
TEST_P(ProgressThread, AnIssuedCallMovesWhileItsRankCallsNothing) {
  std::atomic<bool> peer_done{false};
  constexpr std::size_t count = 1 << 20;  // 4 MiB: a pipeline of segments
  run(2, 1, [&](Comm& comm) {
    Ints data(count);
    std::iota(data.begin(), data.end(), comm.rank());
    Ints expected(count);
    for (std::size_t i = 0; i < count; ++i) expected[i] = static_cast<std::int32_t>(2 * i + 1);
    if (comm.rank() == 1) {
      comm.allreduce(std::span<std::int32_t>(data), ReduceOp::sum);
      peer_done = true;
      EXPECT_EQ(data, expected);
      return;
    }
    Request request = comm.iallreduce(std::span<std::int32_t>(data), ReduceOp::sum);
    const auto until = Clock::now() + 5s;
    while (Clock::now() < until && !peer_done) std::this_thread::sleep_for(1ms);  // the computation
    EXPECT_TRUE(peer_done) << "rank 1's allreduce did not finish while rank 0 computed";
    request.wait();
    EXPECT_EQ(data, expected);
  });
}

// While its call waits on a peer that is 800 ms late, and after, with no
// call at all, rank 0's progress thread sleeps: it spins only briefly
// between sleeps in the transport's wait or on its condition variable.
TEST_P(ProgressThread, SleepsWhileItsCallsWaitOnPeersAndWhileIdle) {
  run(2, 1, [&](Comm& comm) {
    int value = 0;
    if (comm.rank() == 1) {
      std::this_thread::sleep_for(800ms);
      value = 7;
      comm.send(&value, 1, DataType::int32, 0, 5);
      return;
    }
    const auto threads = progress_threads();
    ASSERT_EQ(threads.size(), 1u) << "one communicator with a progress thread in this process";
    const auto cpu_before = cpu_time(threads.front());
    Request request = comm.irecv(&value, 1, DataType::int32, 1, 5);
    std::this_thread::sleep_for(700ms);
    const auto cpu_waiting = cpu_time(threads.front()) - cpu_before;
    request.wait();
    EXPECT_EQ(value, 7);
    const auto cpu_done = cpu_time(threads.front());
    std::this_thread::sleep_for(500ms);
    const auto cpu_idle = cpu_time(threads.front()) - cpu_done;
    // Spinning would use all 700 ms and 500 ms; sleeping uses a few.
    EXPECT_LT(cpu_waiting, 250ms) << "the progress thread spun while its receive waited";
    EXPECT_LT(cpu_idle, 150ms) << "the progress thread spun with nothing to do";
  });
}

// Every rank has a progress thread; a split and a dup share it, calls on
// all three are outstanding at once, and when the last of them is
// destroyed the thread ends.
TEST_P(ProgressThread, ASplitSharesItsParentsThreadAndTheLastCommunicatorEndsIt) {
  constexpr int size = 4;
  std::atomic<int> joined{0};
  test::run_comm_ranks(
      GetParam(), size, Options{.timeout = 30s},
      [&](Comm& comm) {
        Comm half = comm.split(comm.rank() % 2, comm.rank());
        Comm copy = half.dup();
        ++joined;
        while (joined < size) std::this_thread::sleep_for(1ms);
        EXPECT_EQ(progress_threads().size(), static_cast<std::size_t>(size)) << "one thread per rank's family";
        Ints all(3, comm.rank()), mine(3, comm.rank()), again(3, comm.rank());
        Request a = comm.iallreduce(std::span<std::int32_t>(all), ReduceOp::sum);
        Request b = half.iallreduce(std::span<std::int32_t>(mine), ReduceOp::sum);
        Request c = copy.iallreduce(std::span<std::int32_t>(again), ReduceOp::sum);
        c.wait();
        b.wait();
        a.wait();
        const int parity = comm.rank() % 2;
        EXPECT_EQ(all, Ints(3, 0 + 1 + 2 + 3));
        EXPECT_EQ(mine, Ints(3, parity + parity + 2));
        EXPECT_EQ(again, mine);
      },
      [](Options& options) { options.progress = Progress::thread; });
  // Every thread was joined when its last communicator went, but the kernel
  // may list a joined thread in /proc/self/task a moment longer (seen in the
  // emulated RDMA guest): look again for up to a second.
  const auto until = Clock::now() + 1s;
  while (!progress_threads().empty() && Clock::now() < until) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(progress_threads().empty()) << "a progress thread outlived its communicators";
}

// Blocking collectives and point to point through the progress thread,
// with a late rank (its calls must not finish before it enters).
TEST_P(ProgressThread, BlockingCallsRunOnItAndWaitForLateRanks) {
  run(3, 3, [&](Comm& comm) {
    if (comm.rank() == 2) std::this_thread::sleep_for(200ms);
    std::vector<double> v(1001, 1.0 + comm.rank());
    comm.bcast(std::span<double>(v), 2);
    EXPECT_EQ(v, std::vector<double>(1001, 3.0));
    comm.barrier();
    const int next = (comm.rank() + 1) % comm.size(), prev = (comm.rank() + 2) % comm.size();
    Ints out(70001, comm.rank()), in(70001, -1);
    Request send = comm.isend(std::span<const std::int32_t>(out), next, 3);
    EXPECT_EQ(comm.recv(std::span<std::int32_t>(in), prev, 3), in.size());
    send.wait();
    EXPECT_EQ(in, Ints(70001, prev));
    Ints gathered(3 * 2);
    Ints mine{comm.rank(), 10 * comm.rank()};
    comm.allgather(std::span<const std::int32_t>(mine), std::span<std::int32_t>(gathered));
    EXPECT_EQ(gathered, (Ints{0, 0, 1, 10, 2, 20}));
  });
}

INSTANTIATE_TEST_SUITE_P(Backends, ProgressThread, ::testing::Values("inproc", "tcp", "rdma"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace rcoll
