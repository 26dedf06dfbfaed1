// A small job for the multi-process tests.
//   rcoll_test_job ok          every collective once, checked; prints "ok rank R of N"
//   rcoll_test_job exit K      rank K exits with status 3 right after joining;
//                              the others enter an allreduce, print the error
//                              they get ("rank R caught: ...") and exit 4
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: rcoll_test_job ok | exit RANK\n");
    return 2;
  }
  try {
    rcoll::Comm comm = rcoll::Comm::from_env();
    if (std::strcmp(argv[1], "ok") == 0) return run_ok(comm);
    if (std::strcmp(argv[1], "exit") == 0 && argc == 3) return run_exit(comm, std::atoi(argv[2]));
    std::fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
  } catch (const rcoll::Error& e) {
    std::fprintf(stderr, "rcoll error: %s\n", e.what());
    return 5;
  }
}
