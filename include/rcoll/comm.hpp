// The communicator: a group of `size()` ranks that run collectives together.
//
// Threading: a Comm is used by one thread at a time (calls on one Comm must
// not overlap): a call made while another thread's call on the same Comm
// is running throws InvalidArgument naming both, and the running call goes
// on unaffected (abort() alone may come from any thread). Different Comms
// are independent. A blocking call returns when this rank's part is
// complete; an i-call returns a Request (rcoll/request.hpp) for a call in
// flight. Every wait honours the communicator's timeout (Options::timeout,
// RCOLL_TIMEOUT), or the call's own when its trailing CallOptions sets one.
// Calls in flight move while this rank is inside a call, or all the time
// with a progress thread (Options::progress, RCOLL_PROGRESS=thread), on
// which every call of the communicator then runs (docs/THREADING.md).
//
// All ranks must call the same collectives in the same order with matching
// count, dtype, op and root (as in MPI). RCOLL_CHECK=1 (Options::check)
// verifies that before each collective (MismatchError on every rank).
//
// Failures (docs/ERRORS.md): after a TimeoutError or IoError the
// communicator is unusable (after any other error it stays usable); it
// then closes its connections, so that peers waiting on this rank fail at
// once too, and their errors name the first failure. A collective that
// times out says which ranks had not entered it ("ranks 5 and 9 have not
// joined; all others wait on them").
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

#include "rcoll/options.hpp"
#include "rcoll/request.hpp"
#include "rcoll/store.hpp"
#include "rcoll/types.hpp"

namespace rcoll {

namespace comm {
class CommImpl;
}

// The exit status of a process that called Comm::abort().
inline constexpr int abort_exit_code = 70;

// The in-place form of a call, passed as its send buffer (allgather(v),
// reduce_scatter(_v), gather(v) and reduce at the root) or as the root's
// recv buffer (scatter(v)); each call says where the data is then.
extern const void* const in_place;

class Comm {
 public:
  // Reads RCOLL_* (set by rcoll-run), else Slurm, Open MPI or torchrun
  // variables; see README "Environment". Blocks until every rank joined.
  static Comm from_env();
  // Joins the job described by `options`; blocks until every rank joined.
  static Comm create(const Options& options);
  // Joins through a key-value store every rank reaches (rcoll/store.hpp)
  // instead of rcoll's bootstrap service: `options` gives rank, size,
  // job_token, transport and timeout (bootstrap and host_bootstrap are not
  // used). Ranks on several hosts name the interface peers reach them on
  // (socket_ifname, RCOLL_SOCKET_IFNAME); without it TCP listens on
  // loopback. `store` must outlive the communicator.
  static Comm create(const Options& options, Store& store);

  explicit Comm(std::unique_ptr<comm::CommImpl> impl);
  Comm(Comm&&) noexcept;
  Comm& operator=(Comm&&) noexcept;
  ~Comm();

  // False for a Comm that was moved from, and for split()'s result on a
  // rank that gave a negative color. Every member below but these two
  // throws InvalidArgument on such a Comm.
  bool valid() const noexcept { return impl_ != nullptr; }
  explicit operator bool() const noexcept { return valid(); }

  // Sub-communicators (MPI_Comm_split, MPI_Comm_dup). Collective over this
  // communicator: every rank calls it, in the same order relative to its
  // other collectives. The ranks that give the same color >= 0 form a new
  // communicator, ranked by key, ties by rank here; a negative color gives
  // an empty Comm (valid() false). The new one runs on this one's
  // connections and link measurement (no service, no calibration, no new
  // socket or queue pair), with a tag space of its own: this one and its
  // sub-communicators may run calls, blocking or not, side by side on one
  // thread. It may outlive this one. Threading: one thread at a time across
  // a communicator and every one split from it (they share a call guard).
  // Errors: those of a blocking collective (an allgather of color and key);
  // ResourceError once 4095 communicators were split from the first one.
  Comm split(int color, int key, const CallOptions& call = {});
  // split(0, rank()): the same ranks, a tag space of their own.
  Comm dup(const CallOptions& call = {});
  // MPI_Comm_create_group: a communicator of `ranks` (ranks of this one,
  // listed in their new order, the same list on each of them), collective
  // over those ranks only: the others do not call it. The members agree on
  // the new tag space through `store`, which serves this one call (a fresh
  // store, or a part of one; keys under "rcoll/"); the rest is as split():
  // same connections, no service, no calibration. For frameworks whose
  // groups are made by their members alone (torch.distributed.new_group).
  // InvalidArgument when this rank is not listed, a rank is out of range
  // or repeated; the store's TimeoutError when a member does not come.
  Comm create_group(std::span<const int> ranks, Store& store, const CallOptions& call = {});

  int rank() const;
  int size() const;
  // "tcp" or "rdma": the transport this communicator runs on.
  std::string transport_name() const;
  // The plan the collectives follow, as text: per collective and range of
  // message sizes, the algorithm, pipeline segment and depth, after the
  // link figures and settings it was made from. The same on every rank.
  // RCOLL_LOG=info prints it on rank 0 at creation; rcoll-bench --print-plan too.
  std::string describe_plan() const;

  // recv[i] = op over all ranks of send[i]. send == recv is in place; send
  // and recv otherwise must not overlap at all (InvalidArgument before
  // anything is sent: a partly overlapping pair would read what it wrote).
  void allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                 const CallOptions& call = {});
  void allreduce(void* inout, std::size_t count, DataType type, ReduceOp op, const CallOptions& call = {});
  // Copies root's buffer to every rank.
  void bcast(void* buf, std::size_t count, DataType type, int root, const CallOptions& call = {});
  void barrier(const CallOptions& call = {});

  // The MPI-style set. Counts are in elements of `type`; a v-variant's
  // `counts` and `displs` have size() entries, displacements in elements
  // from the buffer's start, blocks that may not overlap. Every rank must
  // pass the same counts and displacements (RCOLL_CHECK compares them),
  // except for gatherv and scatterv, where they matter at the root only.
  // Arguments are checked before anything is sent (InvalidArgument).
  //
  // recv (at root; elsewhere ignored, may be null) = op over all ranks of
  // send. In place at the root: send == recv or in_place.
  void reduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op, int root,
              const CallOptions& call = {});
  // Every rank's `count` elements, in rank order, in every rank's recv
  // (size() * count). in_place: this rank's block is already at recv + rank * count.
  void allgather(const void* send, void* recv, std::size_t count, DataType type, const CallOptions& call = {});
  // This rank's `count` (== counts[rank]) elements land at displs[rank] of every rank's recv.
  // in_place: they are already there.
  void allgatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
                  std::span<const std::size_t> displs, DataType type, const CallOptions& call = {});
  // send holds size() blocks of `count`; recv (count) = op over all ranks
  // of block rank. in_place: the input is recv (size() * count) and the
  // result is left in its first count elements.
  void reduce_scatter(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                      const CallOptions& call = {});
  // The same with block r of counts[r] elements (blocks consecutive in send).
  void reduce_scatter_v(const void* send, void* recv, std::span<const std::size_t> counts, DataType type,
                        ReduceOp op, const CallOptions& call = {});
  // Block r (count elements) of send goes to rank r, and block q of recv
  // comes from rank q. send and recv must not overlap.
  void alltoall(const void* send, void* recv, std::size_t count, DataType type, const CallOptions& call = {});
  void alltoallv(const void* send, std::span<const std::size_t> send_counts, std::span<const std::size_t> send_displs,
                 void* recv, std::span<const std::size_t> recv_counts, std::span<const std::size_t> recv_displs,
                 DataType type, const CallOptions& call = {});
  // Every rank's `count` elements, in rank order, in root's recv (size() *
  // count; ignored elsewhere). in_place at the root: its block is already in place.
  void gather(const void* send, void* recv, std::size_t count, DataType type, int root,
              const CallOptions& call = {});
  // Rank r's `count` elements land at displs[r] of the root's recv (counts,
  // displs and recv are read at the root only; count must be counts[r]).
  void gatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
               std::span<const std::size_t> displs, DataType type, int root, const CallOptions& call = {});
  // Block r (count elements) of the root's send lands in rank r's recv.
  // in_place as the root's recv: the root's block stays in send.
  void scatter(const void* send, void* recv, std::size_t count, DataType type, int root,
               const CallOptions& call = {});
  void scatterv(const void* send, std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                void* recv, std::size_t count, DataType type, int root, const CallOptions& call = {});

  // Point to point; tag >= 0. send returns once its message has left: a
  // message within the transport's eager limit (64 KiB over TCP, up to
  // 256 KiB while the receiver has room; 8 KiB over RDMA) leaves at once,
  // a larger one only when the receiver has posted a matching recv. So, as
  // with MPI_Send, ranks that all send before they receive may wait for
  // each other until the timeout (whose error names the circular wait):
  // let some ranks receive first. recv accepts a message of at most
  // `count` elements and returns the number of elements received; a
  // message that does not fit (longer, or not a whole number of elements)
  // raises MessageError, and the communicator stays usable.
  void send(const void* buf, std::size_t count, DataType type, int dest, int tag, const CallOptions& call = {});
  std::size_t recv(void* buf, std::size_t count, DataType type, int source, int tag, const CallOptions& call = {});

  // Non-blocking forms (rcoll/request.hpp): the arguments, checks and
  // results of the blocking call of the same name; an argument error is
  // thrown by the i-call itself, before anything is issued. The buffers
  // belong to the call until its Request completes. irecv's element count
  // is the completed Request's count().
  Request iallreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                     const CallOptions& call = {});
  Request iallreduce(void* inout, std::size_t count, DataType type, ReduceOp op, const CallOptions& call = {});
  Request ibcast(void* buf, std::size_t count, DataType type, int root, const CallOptions& call = {});
  Request ibarrier(const CallOptions& call = {});
  Request ireduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op, int root,
                  const CallOptions& call = {});
  Request iallgather(const void* send, void* recv, std::size_t count, DataType type, const CallOptions& call = {});
  Request iallgatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
                      std::span<const std::size_t> displs, DataType type, const CallOptions& call = {});
  Request ireduce_scatter(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                          const CallOptions& call = {});
  Request ireduce_scatter_v(const void* send, void* recv, std::span<const std::size_t> counts, DataType type,
                            ReduceOp op, const CallOptions& call = {});
  Request ialltoall(const void* send, void* recv, std::size_t count, DataType type, const CallOptions& call = {});
  Request ialltoallv(const void* send, std::span<const std::size_t> send_counts,
                     std::span<const std::size_t> send_displs, void* recv, std::span<const std::size_t> recv_counts,
                     std::span<const std::size_t> recv_displs, DataType type, const CallOptions& call = {});
  Request igather(const void* send, void* recv, std::size_t count, DataType type, int root,
                  const CallOptions& call = {});
  Request igatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
                   std::span<const std::size_t> displs, DataType type, int root, const CallOptions& call = {});
  Request iscatter(const void* send, void* recv, std::size_t count, DataType type, int root,
                   const CallOptions& call = {});
  Request iscatterv(const void* send, std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                    void* recv, std::size_t count, DataType type, int root, const CallOptions& call = {});
  Request isend(const void* buf, std::size_t count, DataType type, int dest, int tag, const CallOptions& call = {});
  Request irecv(void* buf, std::size_t count, DataType type, int source, int tag, const CallOptions& call = {});

  // Ends the whole job: publishes `reason` to every rank through the
  // bootstrap service (bounded by one second), prints
  // "rcoll: rank R aborted: <reason>" on stderr and ends this process at
  // once with status abort_exit_code (no destructors, no atexit handlers).
  // Other ranks fail at their next wait on this rank with an error that
  // says "rank R aborted: <reason>"; rcoll-run reports it and ends them.
  // Never blocks longer than about a second, whatever the state of the job.
  [[noreturn]] void abort(const std::string& reason);

  template <typename T>
  void allreduce(std::span<const T> send, std::span<T> recv, ReduceOp op, const CallOptions& call = {}) {
    check_same_length(send.size(), recv.size());
    allreduce(send.data(), recv.data(), send.size(), dtype_of_v<T>, op, call);
  }
  template <typename T>
  void allreduce(std::span<T> inout, ReduceOp op, const CallOptions& call = {}) {
    allreduce(inout.data(), inout.size(), dtype_of_v<std::remove_const_t<T>>, op, call);
  }
  template <typename T>
  void bcast(std::span<T> buf, int root, const CallOptions& call = {}) {
    bcast(buf.data(), buf.size(), dtype_of_v<T>, root, call);
  }
  template <typename T>
  void send(std::span<const T> buf, int dest, int tag, const CallOptions& call = {}) {
    send(buf.data(), buf.size(), dtype_of_v<T>, dest, tag, call);
  }
  template <typename T>
  std::size_t recv(std::span<T> buf, int source, int tag, const CallOptions& call = {}) {
    return recv(buf.data(), buf.size(), dtype_of_v<T>, source, tag, call);
  }
  template <typename T>
  Request iallreduce(std::span<T> inout, ReduceOp op, const CallOptions& call = {}) {
    return iallreduce(inout.data(), inout.size(), dtype_of_v<std::remove_const_t<T>>, op, call);
  }
  template <typename T>
  Request isend(std::span<const T> buf, int dest, int tag, const CallOptions& call = {}) {
    return isend(buf.data(), buf.size(), dtype_of_v<T>, dest, tag, call);
  }
  template <typename T>
  Request irecv(std::span<T> buf, int source, int tag, const CallOptions& call = {}) {
    return irecv(buf.data(), buf.size(), dtype_of_v<T>, source, tag, call);
  }

  // Typed forms of the uniform calls; span lengths are checked
  // (InvalidArgument): recv of allgather and gather (at the root) is
  // size() times send, send of reduce_scatter and scatter (at the root)
  // size() times recv, alltoall's two are equal and divisible by size().
  template <typename T>
  void reduce(std::span<const T> send, std::span<T> recv, ReduceOp op, int root, const CallOptions& call = {}) {
    if (rank() == root) check_span("reduce", "recv", send.size(), recv.size());
    reduce(send.data(), recv.data(), send.size(), dtype_of_v<T>, op, root, call);
  }
  template <typename T>
  void allgather(std::span<const T> send, std::span<T> recv, const CallOptions& call = {}) {
    check_span("allgather", "recv", times_size(send.size()), recv.size());
    allgather(send.data(), recv.data(), send.size(), dtype_of_v<T>, call);
  }
  template <typename T>
  void reduce_scatter(std::span<const T> send, std::span<T> recv, ReduceOp op, const CallOptions& call = {}) {
    check_span("reduce_scatter", "send", times_size(recv.size()), send.size());
    reduce_scatter(send.data(), recv.data(), recv.size(), dtype_of_v<T>, op, call);
  }
  template <typename T>
  void alltoall(std::span<const T> send, std::span<T> recv, const CallOptions& call = {}) {
    check_span("alltoall", "recv", send.size(), recv.size());
    check_span("alltoall", "send", times_size(send.size() / static_cast<std::size_t>(size())), send.size());
    alltoall(send.data(), recv.data(), send.size() / static_cast<std::size_t>(size()), dtype_of_v<T>, call);
  }
  template <typename T>
  void gather(std::span<const T> send, std::span<T> recv, int root, const CallOptions& call = {}) {
    if (rank() == root) check_span("gather", "recv", times_size(send.size()), recv.size());
    gather(send.data(), recv.data(), send.size(), dtype_of_v<T>, root, call);
  }
  template <typename T>
  void scatter(std::span<const T> send, std::span<T> recv, int root, const CallOptions& call = {}) {
    if (rank() == root) check_span("scatter", "send", times_size(recv.size()), send.size());
    scatter(send.data(), recv.data(), recv.size(), dtype_of_v<T>, root, call);
  }

  // Typed forms of the v-variants: blocks that run past a span are refused
  // (InvalidArgument) before anything is sent.
  template <typename T>
  void allgatherv(std::span<const T> send, std::span<T> recv, std::span<const std::size_t> counts,
                  std::span<const std::size_t> displs, const CallOptions& call = {}) {
    check_extent("allgatherv", "recv", counts, displs, recv.size());
    allgatherv(send.data(), send.size(), recv.data(), counts, displs, dtype_of_v<T>, call);
  }
  template <typename T>
  void reduce_scatter_v(std::span<const T> send, std::span<T> recv, std::span<const std::size_t> counts, ReduceOp op,
                        const CallOptions& call = {}) {
    check_span("reduce_scatter_v", "send", sum_of(counts), send.size());
    if (static_cast<std::size_t>(rank()) < counts.size())
      check_span("reduce_scatter_v", "recv", counts[static_cast<std::size_t>(rank())], recv.size());
    reduce_scatter_v(send.data(), recv.data(), counts, dtype_of_v<T>, op, call);
  }
  template <typename T>
  void alltoallv(std::span<const T> send, std::span<const std::size_t> send_counts,
                 std::span<const std::size_t> send_displs, std::span<T> recv, std::span<const std::size_t> recv_counts,
                 std::span<const std::size_t> recv_displs, const CallOptions& call = {}) {
    check_extent("alltoallv", "send", send_counts, send_displs, send.size());
    check_extent("alltoallv", "recv", recv_counts, recv_displs, recv.size());
    alltoallv(send.data(), send_counts, send_displs, recv.data(), recv_counts, recv_displs, dtype_of_v<T>, call);
  }
  template <typename T>
  void gatherv(std::span<const T> send, std::span<T> recv, std::span<const std::size_t> counts,
               std::span<const std::size_t> displs, int root, const CallOptions& call = {}) {
    if (rank() == root) check_extent("gatherv", "recv", counts, displs, recv.size());
    gatherv(send.data(), send.size(), recv.data(), counts, displs, dtype_of_v<T>, root, call);
  }
  template <typename T>
  void scatterv(std::span<const T> send, std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                std::span<T> recv, int root, const CallOptions& call = {}) {
    if (rank() == root) check_extent("scatterv", "send", counts, displs, send.size());
    scatterv(send.data(), counts, displs, recv.data(), recv.size(), dtype_of_v<T>, root, call);
  }

  // For tests and tools: the implementation behind this communicator.
  comm::CommImpl& impl() noexcept { return *impl_; }

 private:
  void check_same_length(std::size_t send, std::size_t recv) const;
  // InvalidArgument "rank R: call: <which> span has <got> elements, expected <expected>".
  void check_span(const char* call, const char* which, std::size_t expected, std::size_t got) const;
  std::size_t times_size(std::size_t count) const { return count * static_cast<std::size_t>(size()); }
  // InvalidArgument when a block (displs[r] + counts[r]) ends past `length`
  // elements; counts and displs of different lengths are left to the call's own check.
  void check_extent(const char* call, const char* which, std::span<const std::size_t> counts,
                    std::span<const std::size_t> displs, std::size_t length) const;
  static std::size_t sum_of(std::span<const std::size_t> counts) noexcept;
  std::unique_ptr<comm::CommImpl> impl_;
};

}  // namespace rcoll
