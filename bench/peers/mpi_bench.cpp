// mpi_bench (--overlap: MPI_Iallreduce beside a computation, as
// rcoll-bench --overlap): MPI_Allreduce, MPI_Bcast, MPI_Reduce, MPI_Allgather,
// MPI_Reduce_scatter_block, MPI_Alltoall, MPI_Gather and MPI_Scatter
// (float32, MPI_SUM) measured by the same loop, options and output as
// rcoll-bench (common/peer_runner.hpp), for the side-by-side comparison
// (bench/compare); sizes as nccl-tests (common/peer_layout.hpp). Built once per MPI (mpicxx.openmpi,
// mpicxx.mpich); start it with that MPI's launcher:
//   mpirun -n 4 build/peers/mpi_bench_openmpi --op allreduce --check
// Exit status: 0, 1 for wrong elements or an MPI error, 2 for a bad
// command line.
// The C API only: skip the deprecated C++ bindings of both MPIs.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include "common/args.hpp"
#include "common/json.hpp"
#include "common/overlap.hpp"
#include "common/overlap_report.hpp"
#include "common/peer_runner.hpp"

namespace rcoll::peers {
namespace {

// MPI counts are int: the comparison's largest message (64 MiB of float32)
// is 16 Mi elements, far below INT_MAX. MPI reports errors by aborting the
// job (MPI_ERRORS_ARE_FATAL), which the launcher turns into a failed exit.
class MpiBackend {
 public:
  int rank() const { return rank_; }
  int size() const { return size_; }

  void prepare(PeerOp op, const float* in, float* out, const PeerLayout& layout, int root) {
    op_ = op;
    in_ = in == out ? MPI_IN_PLACE : in;
    out_ = out;
    count_ = static_cast<int>(layout.count);
    block_ = static_cast<int>(layout.block);
    root_ = root;
  }

  void run_once() {
    const MPI_Comm w = MPI_COMM_WORLD;
    const MPI_Datatype f = MPI_FLOAT;
    switch (op_) {
      case PeerOp::allreduce: MPI_Allreduce(in_, out_, count_, f, MPI_SUM, w); break;
      case PeerOp::bcast: MPI_Bcast(out_, count_, f, root_, w); break;
      case PeerOp::reduce: MPI_Reduce(in_, out_, count_, f, MPI_SUM, root_, w); break;
      case PeerOp::allgather: MPI_Allgather(in_, block_, f, out_, block_, f, w); break;
      case PeerOp::reduce_scatter: MPI_Reduce_scatter_block(in_, out_, block_, f, MPI_SUM, w); break;
      case PeerOp::alltoall: MPI_Alltoall(in_, block_, f, out_, block_, f, w); break;
      case PeerOp::gather: MPI_Gather(in_, block_, f, out_, block_, f, root_, w); break;
      case PeerOp::scatter: MPI_Scatter(in_, block_, f, out_, block_, f, root_, w); break;
    }
  }

  void finish() {}

  void barrier() { MPI_Barrier(MPI_COMM_WORLD); }

  void max_over_ranks(std::vector<double>& seconds) {
    MPI_Allreduce(MPI_IN_PLACE, seconds.data(), static_cast<int>(seconds.size()), MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
  }

  void sum_over_ranks(std::uint64_t& errors) {
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  }

 private:
  int rank_ = [] { int r = 0; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }();
  int size_ = [] { int s = 0; MPI_Comm_size(MPI_COMM_WORLD, &s); return s; }();
  PeerOp op_ = PeerOp::allreduce;
  const void* in_ = nullptr;
  float* out_ = nullptr;
  int count_ = 0;  // the vector (allreduce, bcast, reduce)
  int block_ = 0;  // a rank's block (the other ops)
  int root_ = 0;
};

// One prepared MPI_Iallreduce of `count` floats, as bench/common/overlap.hpp
// drives it (rcoll-bench --overlap measures rcoll's the same way).
class MpiOverlap {
 public:
  explicit MpiOverlap(std::size_t count) : send_(count, 1.0f), recv_(count) {}

  void run_blocking() { MPI_Allreduce(send_.data(), recv_.data(), count(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
  void start() { MPI_Iallreduce(send_.data(), recv_.data(), count(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request_); }
  void test() {
    int done = 0;
    MPI_Test(&request_, &done, MPI_STATUS_IGNORE);
  }
  void wait() { MPI_Wait(&request_, MPI_STATUS_IGNORE); }
  void barrier() { MPI_Barrier(MPI_COMM_WORLD); }
  void max_over_ranks(std::vector<double>& seconds) {
    MPI_Allreduce(MPI_IN_PLACE, seconds.data(), static_cast<int>(seconds.size()), MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
  }

 private:
  int count() const { return static_cast<int>(send_.size()); }
  std::vector<float> send_, recv_;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

int run_overlap(const PeerRunInfo& info, int rank, int size) {
  rcoll::bench::ComputeLoop loop;
  if (rank == 0) rcoll::bench::print_overlap_header(stdout, info.library + " (" + info.version + ")", size,
                                                    info.options.poll_every_us);
  for (std::size_t bytes : peer_sweep(info.options)) {
    const std::size_t count = bytes / sizeof(float);
    if (count == 0) continue;
    MpiOverlap backend(count);
    const auto result = rcoll::bench::measure_overlap(backend, loop, info.options.warmup, info.options.iters,
                                                      info.options.poll_every_us);
    if (rank == 0) rcoll::bench::print_overlap_row(stdout, count * sizeof(float), result);
  }
  return 0;
}

// The first line of MPI_Get_library_version.
std::string library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  version.resize(version.find_last_not_of(std::string("\0 \n", 3)) + 1);
  const auto newline = version.find_first_of("\r\n");
  return newline == std::string::npos ? version : version.substr(0, newline);
}

}  // namespace
}  // namespace rcoll::peers

#ifndef PEER_LIBRARY_NAME
#define PEER_LIBRARY_NAME "mpi"
#endif

int main(int argc, char** argv) {
  using namespace rcoll::peers;
  PeerRunInfo info;
  if (auto status = read_command_line("mpi_bench", argc, argv, info.options)) return *status;
  MPI_Init(&argc, &argv);
  MpiBackend backend;
  if (info.options.root >= backend.size()) {
    if (backend.rank() == 0) std::fprintf(stderr, "mpi_bench: --root %d is not a rank\n", info.options.root);
    MPI_Finalize();
    return 2;
  }
  info.library = PEER_LIBRARY_NAME;
  info.version = library_version();
  info.transport = "tcp";
  info.ranks = backend.size();
  info.host = rcoll::bench::host_name();
  int status = 0;
  try {
    status = info.options.overlap ? run_overlap(info, backend.rank(), backend.size()) : run_peer_sweep(backend, info);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpi_bench: rank %d: %s\n", backend.rank(), e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
