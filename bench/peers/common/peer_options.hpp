// Command line of the peer benchmarks (mpi_bench, gloo_bench): the subset of
// rcoll-bench's options that the side-by-side comparison uses, with the same
// names and defaults, so that bench/compare drives every library alike.
// Only float32 sum is implemented (the comparison's sweep). Sizes follow
// nccl-tests' convention (common/peer_layout.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace rcoll::peers {

enum class PeerOp { allreduce, bcast, reduce, allgather, reduce_scatter, alltoall, gather, scatter };

struct PeerOptions {
  PeerOp op = PeerOp::allreduce;
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t{64} << 20;
  double step_factor = 2.0;
  std::vector<std::size_t> sizes;  // replaces the sweep when non-empty
  int iters = 20;
  int warmup = 5;
  int root = 0;          // bcast, reduce, gather, scatter
  bool inplace = false;  // allreduce only (a usage error for the blocked and rooted ops)
  bool check = false;
  std::string json_path;
  bool overlap = false;    // the overlap measurement (bench/common/overlap.hpp), mpi_bench only
  int poll_every_us = 10;  // with --overlap
  bool help = false;
};

// The name --op takes (and rcoll-bench's): "reduce_scatter" with an underscore.
const char* to_string(PeerOp op) noexcept;

// Throws rcoll::bench::UsageError on anything rcoll-bench would reject, on
// --dtype/--redop values other than float32/sum, and on --inplace with an op
// other than allreduce or bcast (bcast has one buffer anyway).
PeerOptions parse_peer_options(const std::vector<std::string>& args);

// --sizes as given, or the geometric sweep rounded down to whole float32
// elements without repeats (as rcoll-bench).
std::vector<std::size_t> peer_sweep(const PeerOptions& options);

// `program` names the benchmark in the first line.
std::string peer_usage(const std::string& program);

// The command line of `program`, as both peer benchmarks read it: fills
// `options` and returns nullopt to go on, or the exit status to end with
// after printing the usage (0 for --help, 2 for a bad command line).
std::optional<int> read_command_line(const std::string& program, int argc, char** argv, PeerOptions& options);

}  // namespace rcoll::peers
