// The communicator's implementation: owns the bootstrap (and, when this
// rank hosts it, the bootstrap service), the transport, and the per-call
// sequence numbers that give each collective its own tag space.
//
// Failure handling (docs/ERRORS.md): a TimeoutError or IoError makes the
// communicator unusable. Before the error leaves, this rank adds what the
// side channel knows (hang diagnosis for a collective that timed out; an
// abort or the first failure of the job), publishes its own failure, and
// closes the transport so that peers waiting on it fail at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/tcp_server.hpp"
#include "collectives/collectives.hpp"
#include "comm/call_guard.hpp"
#include "comm/host_layout.hpp"
#include "comm/tags.hpp"
#include "common/lazy_text.hpp"
#include "common/log.hpp"
#include "diagnostics/call_check.hpp"
#include "diagnostics/call_info.hpp"
#include "diagnostics/call_state.hpp"
#include "diagnostics/call_watch.hpp"
#include "diagnostics/failure_report.hpp"
#include "diagnostics/hang_diagnosis.hpp"
#include "rcoll/errors.hpp"
#include "rcoll/options.hpp"
#include "rcoll/types.hpp"
#include "transport/factory.hpp"
#include "transport/transport.hpp"
#include "transport/wait.hpp"
#include "tuning/calibration.hpp"
#include "tuning/plan.hpp"

namespace rcoll::comm {

// Joins the job with this rank's endpoint blob; returns the joined bootstrap.
using JoinFunction = std::function<std::unique_ptr<bootstrap::Bootstrap>(const std::string& blob, Deadline)>;
// Makes this rank's transport (tests: the in-process one); empty: make_transport(options.transport).
using TransportFactory = std::function<std::unique_ptr<transport::Transport>(const transport::TransportConfig&)>;

class CommImpl {
 public:
  // Creates the transport, joins through `join` with this rank's card
  // (rank_card.hpp), checks that every rank shares the settings it must,
  // hands every peer's endpoint to the transport, and plans the
  // collectives (tuning/). `server` (may be null) is kept alive with the
  // communicator when this rank hosts the bootstrap service. Installs the
  // status signal handler when RCOLL_STATUS_SIGNAL=1 (rcoll-run sets it).
  CommImpl(const Options& options, const JoinFunction& join, std::unique_ptr<bootstrap::BootstrapServer> server,
           const TransportFactory& make_transport = {});
  ~CommImpl();
  CommImpl(const CommImpl&) = delete;
  CommImpl& operator=(const CommImpl&) = delete;

  int rank() const noexcept { return options_.rank; }
  int size() const noexcept { return options_.size; }
  const Options& options() const noexcept { return options_; }
  // IoError once the communicator failed (its transport is closed then).
  transport::Transport& transport();
  const std::string& transport_name() const noexcept { return transport_name_; }
  bootstrap::Bootstrap& bootstrap() noexcept { return *bootstrap_; }

  // `timeout` 0: options().timeout.
  using Timeout = std::chrono::milliseconds;
  void allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op, Timeout timeout = {});
  void bcast(void* buf, std::size_t count, DataType type, int root, Timeout timeout = {});
  void barrier(Timeout timeout = {});
  // The MPI-style set (collective_set.cpp); arguments as in Comm, the
  // in-place sentinel resolved here.
  void reduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op, int root,
              Timeout timeout = {});
  void allgather(const void* send, void* recv, std::size_t count, DataType type, Timeout timeout = {});
  void allgatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
                  std::span<const std::size_t> displs, DataType type, Timeout timeout = {});
  void reduce_scatter(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                      Timeout timeout = {});
  void reduce_scatter_v(const void* send, void* recv, std::span<const std::size_t> counts, DataType type,
                        ReduceOp op, Timeout timeout = {});
  void alltoall(const void* send, void* recv, std::size_t count, DataType type, Timeout timeout = {});
  void alltoallv(const void* send, std::span<const std::size_t> send_counts, std::span<const std::size_t> send_displs,
                 void* recv, std::span<const std::size_t> recv_counts, std::span<const std::size_t> recv_displs,
                 DataType type, Timeout timeout = {});
  void gather(const void* send, void* recv, std::size_t count, DataType type, int root, Timeout timeout = {});
  void gatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
               std::span<const std::size_t> displs, DataType type, int root, Timeout timeout = {});
  void scatter(const void* send, void* recv, std::size_t count, DataType type, int root, Timeout timeout = {});
  void scatterv(const void* send, std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                void* recv, std::size_t count, DataType type, int root, Timeout timeout = {});
  void send(const void* buf, std::size_t count, DataType type, int dest, int tag, Timeout timeout = {});
  std::size_t recv(void* buf, std::size_t count, DataType type, int source, int tag, Timeout timeout = {});
  // See Comm::abort.
  [[noreturn]] void abort(const std::string& reason);

  // The plan every collective follows, built at creation from facts every
  // rank has: identical on every rank. Callable on a broken communicator.
  const tuning::Plan& plan() const noexcept { return *plan_; }
  // The link model measured (or assumed) at creation, the plan's input.
  const tuning::LinkModel& link_model() const noexcept { return link_model_; }
  // Which ranks share this rank's host, from every rank's join card.
  const HostLayout& host_layout() const noexcept { return layout_; }
  // Held by every public call (Comm) for its duration: one call at a time.
  CallGuard& call_guard() noexcept { return call_guard_; }

 private:
  // Runs one blocking call: body(deadline, label). A template, not a
  // std::function: this wraps every small-message call.
  template <typename Body>
  void run(const diagnostics::CallInfo& call, Timeout timeout, Body&& body) {
    auto label = [&call] { return call.label(); };
    ensure_usable(label);
    Timeout span = timeout.count() > 0 ? timeout : options_.timeout;
    Deadline deadline = Deadline::after(span);
    const auto start = deadline.at() - span;
    diagnostics::CallWatch watch(call, *state_, call.collective() ? &*diagnosis_ : nullptr,
                                 diagnostics::FailureWatch(&*failures_, rank(), start),
                                 start + diagnostics::HangDiagnosis::slow_after(span));
    transport::ScopedWaitObserver observe(&watch, spin_);
    state_->enter(call);
    try {
      try {
        body(deadline, LazyText(label));
      } catch (const std::bad_alloc&) {
        throw_out_of_memory(call);
      }
    } catch (const Error&) {
      state_->leave(false);
      fail(call);
    }
    state_->leave(true);
  }
  // Posts one point-to-point request: post_request() returns it. Errors
  // take the same path as in run(). A request that is already done needs
  // no run(): no deadline, no wait, no call state (a small send usually
  // leaves inside isend), which is most of a small message's overhead.
  template <typename Post>
  transport::RequestPtr post(const diagnostics::CallInfo& call, Post&& post_request) {
    ensure_usable([&call] { return call.label(); });
    try {
      try {
        return post_request();
      } catch (const std::bad_alloc&) {
        throw_out_of_memory(call);
      }
    } catch (const Error&) {
      fail(call);
    }
  }
  void ensure_usable(const LazyText& label) const;
  // A std::bad_alloc met while `call` communicated, as the ResourceError
  // that fail() then handles like any other failure (it breaks the
  // communicator: peers may be waiting on this rank's part).
  [[noreturn]] void throw_out_of_memory(const diagnostics::CallInfo& call) const;
  // Inside a catch handler: rethrows the error being handled, completed
  // with what the side channel knows; a TimeoutError or IoError also breaks
  // the communicator (break_down).
  [[noreturn]] void fail(const diagnostics::CallInfo& call);
  // Inside a catch handler: rethrows the Error being handled after breaking
  // the communicator down, an IoError completed with the first failure the
  // side channel knows of along its peer's chain ("first failure: rank 3,
  // peer 2: ..."). What fail() does for IoError and other Errors.
  [[noreturn]] void rethrow_broken();
  // At the timeout of send `call`: "; <why>" (diagnostics/blocked_send.hpp), or "".
  std::string blocked_send_clause(const diagnostics::CallInfo& call);
  void break_down(int peer, const Error& error);
  std::uint64_t next_sequence() noexcept { return sequence_++; }
  // The constructor's steps: join with this rank's card and connect the
  // transport to its peers; then measure the link and make the plan.
  void join_job(const JoinFunction& join, Deadline deadline);
  void plan_job(Deadline deadline);
  // Runs collective `call` as the plan's `choice` says: the RCOLL_CHECK
  // exchange when asked, then schedule(context) with the call's tags,
  // deadline and label and the choice's segment and depth.
  template <typename Choice, typename Schedule>
  void run_collective(const diagnostics::CallInfo& call, const Choice& choice, Timeout timeout,
                      Schedule&& schedule) {
    run(call, timeout, [&](Deadline deadline, const LazyText& label) {
      const auto algorithm = choice.algorithm->id;
      if (log::get().should_log(spdlog::level::debug))
        log::debug("{}: algorithm {}, segment {}", label.str(), to_string(algorithm), choice.segment);
      const transport::Tag tags = collective_tag_base(call.sequence);
      if (options_.check)
        diagnostics::check_call(*transport_, call, static_cast<std::uint8_t>(algorithm), check_tag(call.sequence),
                                deadline, label);
      schedule(collectives::Context{*transport_, tags, deadline, choice.segment, choice.depth, label});
    });
  }

  Options options_;
  // Destroyed in reverse order: the transport first (it may use the
  // bootstrap until then), then the bootstrap client, then the service.
  std::unique_ptr<bootstrap::BootstrapServer> server_;
  std::unique_ptr<bootstrap::Bootstrap> bootstrap_;
  std::unique_ptr<transport::Transport> transport_;
  std::string transport_name_;
  std::optional<diagnostics::HangDiagnosis> diagnosis_;
  std::optional<diagnostics::FailureReport> failures_;
  std::shared_ptr<diagnostics::CallState> state_;
  HostLayout layout_;
  tuning::LinkModel link_model_;
  std::optional<tuning::Plan> plan_;
  // How waits spin: yielding where this host's ranks outnumber its CPUs.
  transport::SpinMode spin_ = transport::SpinMode::pure;
  std::uint64_t sequence_ = 0;
  std::string broken_reason_;
  CallGuard call_guard_;
};

}  // namespace rcoll::comm
