// Everything a communicator can be told. Comm::from_env() fills it from the
// launcher's environment; applications may also fill it themselves.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace rcoll {

enum class TransportKind { automatic, tcp, rdma };
enum class AllreduceAlgo { automatic, ring, tree, recursive_doubling };
enum class BcastAlgo { automatic, binomial, scatter_allgather, chain };
enum class ReduceAlgo { automatic, binomial, reduce_scatter_gather };
enum class AllgatherAlgo { automatic, ring, recursive_doubling, bruck };
enum class ReduceScatterAlgo { automatic, ring, recursive_halving };
enum class AlltoallAlgo { automatic, pairwise, bruck };
enum class GatherAlgo { automatic, binomial, linear };
enum class ScatterAlgo { automatic, binomial, linear };
// Who moves the issued (non-blocking) calls: `caller`, the application's
// thread inside each call, test() and wait(); `thread`, a progress thread
// of the communicator's own, also while the application computes
// (docs/THREADING.md).
enum class Progress { caller, thread };

// The smallest pipeline segment Options::segment_bytes (RCOLL_SEGMENT_BYTES)
// takes. Every segment is a message with its own request, header and
// match: below a page that overhead outweighs the payload (1-byte segments
// made a 4 MiB allreduce take 11 s and 214 MiB), and a page is still far
// below where a pipeline stops gaining (docs/PERFORMANCE.md, "Segments").
inline constexpr std::size_t min_segment_bytes = 4096;

struct Options {
  int rank = -1;        // 0 <= rank < size
  int size = -1;        // world size, >= 1
  int local_rank = 0;   // rank among the processes on this host
  int local_size = 1;   // processes of this job on this host
  // "host:port" of the bootstrap rank service.
  std::string bootstrap;
  // When true, this rank (which must be rank 0) runs the bootstrap service
  // itself at `bootstrap` (no launcher-provided service, e.g. under torchrun).
  bool host_bootstrap = false;
  // Shared secret of the job; every join must present it.
  std::string job_token;
  TransportKind transport = TransportKind::automatic;
  // Interface name ("eth0") or IPv4 address that peers should use to reach
  // this rank over TCP. Empty: the address the bootstrap service sees
  // (on a caller's store, Comm::create(options, store): loopback).
  std::string socket_ifname;
  // Deadline for joining and for every blocking call (collective, send, recv).
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
  // Force one algorithm per collective (RCOLL_<COLLECTIVE>_ALGO, e.g.
  // RCOLL_ALLGATHER_ALGO=bruck); automatic: the plan chooses by size. A
  // v-variant (allgatherv, ...) follows its collective's setting when it
  // has that algorithm, else chooses itself.
  AllreduceAlgo allreduce_algo = AllreduceAlgo::automatic;
  BcastAlgo bcast_algo = BcastAlgo::automatic;
  ReduceAlgo reduce_algo = ReduceAlgo::automatic;
  AllgatherAlgo allgather_algo = AllgatherAlgo::automatic;
  ReduceScatterAlgo reduce_scatter_algo = ReduceScatterAlgo::automatic;
  AlltoallAlgo alltoall_algo = AlltoallAlgo::automatic;
  GatherAlgo gather_algo = GatherAlgo::automatic;
  ScatterAlgo scatter_algo = ScatterAlgo::automatic;
  // Pipeline segment for large messages; 0 chooses from the transport.
  // Otherwise at least min_segment_bytes (InvalidArgument at creation).
  std::size_t segment_bytes = 0;
  // RCOLL_CHECK=1: before each collective the ranks compare what they were
  // called with (kind, count, dtype, op, root, algorithm) and all raise
  // MismatchError when the calls differ. Costs one extra exchange through
  // rank 0 per collective; meant for debugging.
  bool check = false;
  // RCOLL_CALIBRATE (default 1): at creation, ranks 0 and 1 measure the
  // link's latency and bandwidth and rank 0 the reduction speed (a few
  // milliseconds), and the algorithm plan is made from those figures; 0
  // uses fixed per-transport estimates instead. Ignored for one rank.
  //
  // Every rank must be given the same algorithms, segment, calibrate and
  // check: the ranks compare them when they join, and a difference fails
  // creation on every rank with an InvalidArgument naming it.
  bool calibrate = true;
  // RCOLL_PROGRESS=caller|thread (default caller). A rank's own choice:
  // ranks may differ. A communicator split from this one shares its
  // progress thread.
  Progress progress = Progress::caller;
};

// Per-call settings: the trailing, optional argument of every blocking call
// of Comm, e.g. comm.allreduce(buf, n, type, op, {.timeout = 5s}).
struct CallOptions {
  // Deadline of this call; 0 means the communicator's Options::timeout.
  std::chrono::milliseconds timeout{0};
};

std::string to_string(TransportKind kind);
std::string to_string(AllreduceAlgo algo);
std::string to_string(BcastAlgo algo);
std::string to_string(ReduceAlgo algo);
std::string to_string(AllgatherAlgo algo);
std::string to_string(ReduceScatterAlgo algo);
std::string to_string(AlltoallAlgo algo);
std::string to_string(GatherAlgo algo);
std::string to_string(ScatterAlgo algo);
std::string to_string(Progress progress);
// Parse the names used by the environment variables; throw InvalidArgument.
TransportKind parse_transport(const std::string& name);
AllreduceAlgo parse_allreduce_algo(const std::string& name);
BcastAlgo parse_bcast_algo(const std::string& name);
ReduceAlgo parse_reduce_algo(const std::string& name);
AllgatherAlgo parse_allgather_algo(const std::string& name);
ReduceScatterAlgo parse_reduce_scatter_algo(const std::string& name);
AlltoallAlgo parse_alltoall_algo(const std::string& name);
GatherAlgo parse_gather_algo(const std::string& name);
ScatterAlgo parse_scatter_algo(const std::string& name);
Progress parse_progress(const std::string& name);

// What Comm::from_env() reads from the environment: the launcher's rank,
// size and bootstrap address, and every RCOLL_* setting (README). For
// making a communicator another way with the user's settings (the PyTorch
// backend: Comm::create on torch's store, rank and size from torch).
// InvalidArgument for a malformed variable, naming it.
Options options_from_env();

}  // namespace rcoll
