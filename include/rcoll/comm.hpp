// The communicator: a group of `size()` ranks that run collectives together.
//
// Threading: a Comm is used by one thread at a time (calls on one Comm must
// not overlap): a call made while another thread's call on the same Comm
// is running throws InvalidArgument naming both, and the running call goes
// on unaffected (abort() alone may come from any thread). Different Comms
// are independent. Every call is blocking and
// returns when this rank's part is complete; every wait honours the
// communicator's timeout (Options::timeout, RCOLL_TIMEOUT), or the call's
// own when its trailing CallOptions sets one.
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
#include "rcoll/types.hpp"

namespace rcoll {

namespace comm {
class CommImpl;
}

// The exit status of a process that called Comm::abort().
inline constexpr int abort_exit_code = 70;

class Comm {
 public:
  // Reads RCOLL_* (set by rcoll-run), else Slurm, Open MPI or torchrun
  // variables; see README "Environment". Blocks until every rank joined.
  static Comm from_env();
  // Joins the job described by `options`; blocks until every rank joined.
  static Comm create(const Options& options);

  explicit Comm(std::unique_ptr<comm::CommImpl> impl);
  Comm(Comm&&) noexcept;
  Comm& operator=(Comm&&) noexcept;
  ~Comm();

  // Every member below but impl() throws InvalidArgument ("this Comm was
  // moved from") on a Comm that was moved from.
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

  // For tests and tools: the implementation behind this communicator.
  comm::CommImpl& impl() noexcept { return *impl_; }

 private:
  void check_same_length(std::size_t send, std::size_t recv) const;
  std::unique_ptr<comm::CommImpl> impl_;
};

}  // namespace rcoll
