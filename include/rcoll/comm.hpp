// The communicator: a group of `size()` ranks that run collectives together.
//
// Threading: a Comm is used by one thread at a time (calls on one Comm must
// not overlap). Different Comms are independent. Every call is blocking and
// returns when this rank's part is complete; every wait honours the
// communicator's timeout.
//
// All ranks must call the same collectives in the same order with matching
// count, dtype, op and root (as in MPI).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>

#include "rcoll/options.hpp"
#include "rcoll/types.hpp"

namespace rcoll {

namespace detail {
class CommImpl;
}

class Comm {
 public:
  // Reads RCOLL_* (set by rcoll-run), else Slurm, Open MPI or torchrun
  // variables; see README "Environment". Blocks until every rank joined.
  static Comm from_env();
  // Joins the job described by `options`; blocks until every rank joined.
  static Comm create(const Options& options);

  explicit Comm(std::unique_ptr<detail::CommImpl> impl);
  Comm(Comm&&) noexcept;
  Comm& operator=(Comm&&) noexcept;
  ~Comm();

  int rank() const noexcept;
  int size() const noexcept;
  // "tcp" or "rdma": the transport this communicator runs on.
  std::string transport_name() const;

  // recv[i] = op over all ranks of send[i]. send == recv is in place.
  void allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op);
  void allreduce(void* inout, std::size_t count, DataType type, ReduceOp op);
  // Copies root's buffer to every rank.
  void bcast(void* buf, std::size_t count, DataType type, int root);
  void barrier();
  // Point to point; tag >= 0. recv accepts a message of at most `count`
  // elements and returns the number of elements received.
  void send(const void* buf, std::size_t count, DataType type, int dest, int tag);
  std::size_t recv(void* buf, std::size_t count, DataType type, int source, int tag);

  template <typename T>
  void allreduce(std::span<const T> send, std::span<T> recv, ReduceOp op) {
    check_same_length(send.size(), recv.size());
    allreduce(send.data(), recv.data(), send.size(), dtype_of_v<T>, op);
  }
  template <typename T>
  void allreduce(std::span<T> inout, ReduceOp op) {
    allreduce(inout.data(), inout.size(), dtype_of_v<std::remove_const_t<T>>, op);
  }
  template <typename T>
  void bcast(std::span<T> buf, int root) {
    bcast(buf.data(), buf.size(), dtype_of_v<T>, root);
  }
  template <typename T>
  void send(std::span<const T> buf, int dest, int tag) {
    send(buf.data(), buf.size(), dtype_of_v<T>, dest, tag);
  }
  template <typename T>
  std::size_t recv(std::span<T> buf, int source, int tag) {
    return recv(buf.data(), buf.size(), dtype_of_v<T>, source, tag);
  }

  // For tests and tools: the implementation behind this communicator.
  detail::CommImpl& impl() noexcept { return *impl_; }

 private:
  static void check_same_length(std::size_t send, std::size_t recv);
  std::unique_ptr<detail::CommImpl> impl_;
};

}  // namespace rcoll
