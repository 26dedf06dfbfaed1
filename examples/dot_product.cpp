// dot_product: a distributed dot product and 2-norm with one allreduce.
//
// What it shows: the basic data-parallel pattern. Each rank owns a slice of
// two long vectors (here generated, in a real program read or computed),
// reduces its slice locally, and a single allreduce (float64 sum) combines
// the partial results so that every rank holds the global values.
//
//   x[i] = i + 1,  y[i] = 1 / (i + 1)      for i = 0 .. N-1
//   x . y = N,     |x| = sqrt(N (N+1) (2N+1) / 6)
//
// Run (N defaults to 10,000,000):
//   tools/rcoll-run -n 4 -- build/examples/dot_product [N]
// Rank 0 prints the results; every rank exits 1 when they are wrong.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include <rcoll/rcoll.hpp>

namespace {

// The half-open index range [begin, end) that `rank` owns; the first
// N % size ranks get one element more, so any N and size work.
struct Slice {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

Slice slice_of(std::uint64_t n, int rank, int size) {
  const auto r = static_cast<std::uint64_t>(rank);
  const auto s = static_cast<std::uint64_t>(size);
  const std::uint64_t base = n / s, extra = n % s;
  const std::uint64_t begin = r * base + std::min(r, extra);
  return {begin, begin + base + (r < extra ? 1 : 0)};
}

bool close_to(double value, double expected, double relative_tolerance) {
  return std::fabs(value - expected) <= relative_tolerance * std::fabs(expected);
}

int run(rcoll::Comm& comm, std::uint64_t n) {
  const Slice mine = slice_of(n, comm.rank(), comm.size());

  // partial[0] = sum x*y over my slice, partial[1] = sum x*x.
  double partial[2] = {0.0, 0.0};
  for (std::uint64_t i = mine.begin; i < mine.end; ++i) {
    const double x = static_cast<double>(i + 1);
    const double y = 1.0 / static_cast<double>(i + 1);
    partial[0] += x * y;
    partial[1] += x * x;
  }
  comm.allreduce(std::span<double>(partial), rcoll::ReduceOp::sum);

  const double dot = partial[0];
  const double norm = std::sqrt(partial[1]);
  const double nd = static_cast<double>(n);
  const double expected_dot = nd;
  const double expected_norm = std::sqrt(nd * (nd + 1) * (2 * nd + 1) / 6);
  // Rounding grows with N; 1e-9 leaves ample room for 1e7 terms.
  const bool ok = close_to(dot, expected_dot, 1e-9) && close_to(norm, expected_norm, 1e-9);

  if (comm.rank() == 0) {
    std::printf("dot_product: N = %llu on %d ranks (%s)\n", static_cast<unsigned long long>(n), comm.size(),
                comm.transport_name().c_str());
    std::printf("  x . y = %.10g   (expected %.10g)\n", dot, expected_dot);
    std::printf("  |x|   = %.10g   (expected %.10g)\n", norm, expected_norm);
    std::printf("  %s\n", ok ? "OK" : "MISMATCH");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t n = 10'000'000;
  if (argc > 1) n = std::strtoull(argv[1], nullptr, 10);
  if (n == 0) {
    std::fprintf(stderr, "usage: dot_product [N > 0]\n");
    return 2;
  }
  try {
    rcoll::Comm comm = rcoll::Comm::from_env();
    return run(comm, n);
  } catch (const rcoll::Error& e) {
    std::fprintf(stderr, "dot_product: %s\n", e.what());
    return 1;
  }
}
