// heat1d: steady 1-D heat conduction solved by Jacobi iteration on a domain
// split across ranks.
//
// What it shows: the classic halo-exchange stencil code. Rank 0 reads the
// parameters and broadcasts them; each rank owns a contiguous block of grid
// points (any number of points per rank, blocks need not be equal) plus one
// ghost cell per side, refreshed every iteration with send/recv from its
// neighbours; an allreduce (max) of the local update size gives the global
// residual that decides when to stop.
//
// The rod [0, 1] has fixed end temperatures `left` and `right`; the steady
// state is the straight line u(x) = left + (right - left) x, which the
// program checks at the end.
//
// Run (defaults: 23 interior points, tolerance 1e-10, at most 20000 iterations):
//   tools/rcoll-run -n 3 -- build/examples/heat1d [points] [tolerance] [max_iters]
// Rank 0 prints iterations, residual and error; every rank exits 1 if wrong.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include <rcoll/rcoll.hpp>

namespace {

struct Params {
  double points = 23, tolerance = 1e-10, max_iters = 20000, left = 1.0, right = 3.0;
};

constexpr int kTagRightward = 1;
constexpr int kTagLeftward = 2;

// Fills the ghost cells u[0] and u[m+1] from the neighbours. Even ranks
// send first and odd ranks receive first, so every blocking send meets a
// posted receive and the chain never deadlocks, whatever the transport buffers.
void exchange_halo(rcoll::Comm& comm, std::vector<double>& u) {
  const int rank = comm.rank();
  const bool has_left = rank > 0, has_right = rank + 1 < comm.size();
  const std::size_t m = u.size() - 2;
  auto cell = [&](std::size_t i) { return std::span<double>(&u[i], 1); };
  auto send_right = [&] { if (has_right) comm.send<double>(cell(m), rank + 1, kTagRightward); };
  auto recv_left = [&] { if (has_left) comm.recv(cell(0), rank - 1, kTagRightward); };
  auto send_left = [&] { if (has_left) comm.send<double>(cell(1), rank - 1, kTagLeftward); };
  auto recv_right = [&] { if (has_right) comm.recv(cell(m + 1), rank + 1, kTagLeftward); };
  if (rank % 2 == 0) {
    send_right();
    recv_left();
    send_left();
    recv_right();
  } else {
    recv_left();
    send_right();
    recv_right();
    send_left();
  }
}

Params broadcast_params(rcoll::Comm& comm, int argc, char** argv) {
  Params p;
  if (comm.rank() == 0) {
    if (argc > 1) p.points = std::atof(argv[1]);
    if (argc > 2) p.tolerance = std::atof(argv[2]);
    if (argc > 3) p.max_iters = std::atof(argv[3]);
  }
  double packed[5] = {p.points, p.tolerance, p.max_iters, p.left, p.right};
  comm.bcast(std::span<double>(packed), 0);
  return {packed[0], packed[1], packed[2], packed[3], packed[4]};
}

int run(rcoll::Comm& comm, const Params& p) {
  const long n = static_cast<long>(p.points), rank = comm.rank(), size = comm.size();
  if (n < size) {
    if (rank == 0) std::fprintf(stderr, "heat1d: need at least one point per rank (%ld < %ld)\n", n, size);
    return 2;
  }
  // Global interior points are 1..n; I own [first, first + m).
  const long first = 1 + n * rank / size, m = 1 + n * (rank + 1) / size - first;
  const double h = 1.0 / static_cast<double>(n + 1);
  std::vector<double> u(static_cast<std::size_t>(m) + 2, 0.0), next = u;
  if (rank == 0) u[0] = next[0] = p.left;
  if (rank == size - 1) u[m + 1] = next[m + 1] = p.right;

  double residual = INFINITY;
  long iter = 0;
  while (iter < static_cast<long>(p.max_iters) && residual >= p.tolerance) {
    exchange_halo(comm, u);
    double local = 0.0;
    for (long i = 1; i <= m; ++i) {
      next[i] = 0.5 * (u[i - 1] + u[i + 1]);
      local = std::max(local, std::fabs(next[i] - u[i]));
    }
    std::swap(u, next);  // ghost/boundary cells are refreshed or fixed
    comm.allreduce(std::span<double>(&local, 1), rcoll::ReduceOp::max);
    residual = local;
    ++iter;
  }

  double error = 0.0;
  for (long i = 1; i <= m; ++i) {
    const double x = static_cast<double>(first + i - 1) * h;
    error = std::max(error, std::fabs(u[i] - (p.left + (p.right - p.left) * x)));
  }
  comm.allreduce(std::span<double>(&error, 1), rcoll::ReduceOp::max);
  // Jacobi: error <= |(I - J)^-1| * residual = (n+1)^2 / 4 * residual in
  // the max norm; (n+1)^2 leaves a margin for rounding.
  const double bound = p.tolerance * static_cast<double>((n + 1) * (n + 1)) + 1e-12;
  const bool ok = residual < p.tolerance && error <= bound;
  if (rank == 0)
    std::printf("heat1d: %ld points on %ld ranks (%s): %ld iterations, residual %.3e, max error %.3e: %s\n", n, size,
                comm.transport_name().c_str(), iter, residual, error, ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    rcoll::Comm comm = rcoll::Comm::from_env();
    return run(comm, broadcast_params(comm, argc, argv));
  } catch (const rcoll::Error& e) {
    std::fprintf(stderr, "heat1d: %s\n", e.what());
    return 1;
  }
}
