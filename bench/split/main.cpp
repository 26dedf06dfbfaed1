// rcoll-split-bench: what Comm::split costs beside the allgather of
// (color, key, id) it is made of, with ranks as threads of this process
// (TCP transport, joined through an InMemoryStore). Each repetition times,
// on every rank, one allgather of 3 int64 and one split into halves (which
// is built and dropped); per repetition the slowest rank counts; prints
// the medians in microseconds, and the first split on its own (it makes
// the halves' plan, which later splits of that size and layout reuse).
//
//   build/bench/rcoll-split-bench [--ranks N] [--reps R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <rcoll/rcoll.hpp>

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

template <typename Body>
double slowest_us(rcoll::Comm& comm, Body&& body) {
  comm.barrier();
  const auto start = Clock::now();
  body();
  double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  comm.allreduce(&us, &us, 1, rcoll::DataType::float64, rcoll::ReduceOp::max);
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  int ranks = 64, reps = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--ranks") == 0) ranks = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
  }
  if (ranks < 1 || reps < 1) {
    std::fprintf(stderr, "usage: rcoll-split-bench [--ranks N >= 1] [--reps R >= 1]\n");
    return 2;
  }
  rcoll::InMemoryStore store;
  std::vector<double> allgather_us, split_us;
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      rcoll::Options options;
      options.rank = r;
      options.size = ranks;
      options.transport = rcoll::TransportKind::tcp;
      options.job_token = "split-bench";
      rcoll::Comm comm = rcoll::Comm::create(options, store);
      std::vector<std::int64_t> all(3 * static_cast<std::size_t>(ranks));
      const std::int64_t mine[3] = {r % 2, r, 1};
      for (int rep = 0; rep < reps; ++rep) {
        double a = slowest_us(comm, [&] { comm.allgather(mine, all.data(), 3, rcoll::DataType::int64); });
        double s = slowest_us(comm, [&] { rcoll::Comm half = comm.split(r % 2, r); });
        if (r == 0) allgather_us.push_back(a), split_us.push_back(s);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::printf("# rcoll-split-bench: %d ranks as threads (tcp), %d repetitions, slowest rank, median\n", ranks, reps);
  const double first = split_us.front();
  std::printf(
      "allgather of 3 x int64: %.1f us\nsplit into halves:      %.1f us (%.2fx)\nfirst split:            %.1f us\n",
      median(allgather_us), median(split_us), median(split_us) / median(allgather_us), first);
  return 0;
}
