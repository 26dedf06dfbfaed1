// The communicator's implementation: owns the bootstrap (and, when this
// rank hosts it, the bootstrap service), the transport, and the per-call
// sequence numbers that give each collective its own tag space.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/tcp_server.hpp"
#include "common/lazy_text.hpp"
#include "rcoll/errors.hpp"
#include "rcoll/options.hpp"
#include "rcoll/types.hpp"
#include "transport/transport.hpp"

namespace rcoll::detail {

// Joins the job with this rank's endpoint blob; returns the joined bootstrap.
using JoinFunction = std::function<std::unique_ptr<bootstrap::Bootstrap>(const std::string& blob, Deadline)>;

class CommImpl {
 public:
  // Creates the transport, joins through `join`, and hands every peer's
  // endpoint to the transport. `server` (may be null) is kept alive with the
  // communicator when this rank hosts the bootstrap service.
  CommImpl(const Options& options, const JoinFunction& join, std::unique_ptr<bootstrap::BootstrapServer> server);
  ~CommImpl();
  CommImpl(const CommImpl&) = delete;
  CommImpl& operator=(const CommImpl&) = delete;

  int rank() const noexcept { return options_.rank; }
  int size() const noexcept { return options_.size; }
  const Options& options() const noexcept { return options_; }
  transport::Transport& transport() noexcept { return *transport_; }
  bootstrap::Bootstrap& bootstrap() noexcept { return *bootstrap_; }

  void allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op);
  void bcast(void* buf, std::size_t count, DataType type, int root);
  void barrier();
  void send(const void* buf, std::size_t count, DataType type, int dest, int tag);
  std::size_t recv(void* buf, std::size_t count, DataType type, int source, int tag);

  // The algorithm `allreduce`/`bcast` would use for a message of `bytes`.
  AllreduceAlgo allreduce_algo_for(std::size_t bytes) const;
  BcastAlgo bcast_algo_for(std::size_t bytes) const;

 private:
  // Runs one blocking operation; a timeout or I/O error leaves the
  // communicator unusable, and later calls say why. A template, not a
  // std::function: this wraps every small-message call.
  template <typename Body>
  void guarded(const LazyText& label, Body&& body) {
    ensure_usable(label);
    try {
      body();
    } catch (const Error& e) {
      remember_failure(e);
      throw;
    }
  }
  void ensure_usable(const LazyText& label) const;
  // Marks the communicator unusable after `e` (not after InvalidArgument).
  void remember_failure(const Error& e);
  std::uint64_t next_sequence() noexcept { return sequence_++; }
  std::size_t segment_bytes() const;
  Deadline call_deadline() const;

  Options options_;
  // Destroyed in reverse order: the transport first (it may use the
  // bootstrap until then), then the bootstrap client, then the service.
  std::unique_ptr<bootstrap::BootstrapServer> server_;
  std::unique_ptr<bootstrap::Bootstrap> bootstrap_;
  std::unique_ptr<transport::Transport> transport_;
  std::uint64_t sequence_ = 0;
  std::string broken_reason_;
};

}  // namespace rcoll::detail
