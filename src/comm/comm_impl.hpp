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
#include <optional>
#include <string>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/tcp_server.hpp"
#include "collectives/choose.hpp"
#include "collectives/collectives.hpp"
#include "diagnostics/call_info.hpp"
#include "diagnostics/call_state.hpp"
#include "diagnostics/call_watch.hpp"
#include "comm/core_sharing.hpp"
#include "diagnostics/failure_report.hpp"
#include "diagnostics/hang_diagnosis.hpp"
#include "comm/link_calibration.hpp"
#include "common/lazy_text.hpp"
#include "rcoll/errors.hpp"
#include "rcoll/options.hpp"
#include "rcoll/types.hpp"
#include "transport/factory.hpp"
#include "transport/transport.hpp"

namespace rcoll::comm {

// Joins the job with this rank's endpoint blob; returns the joined bootstrap.
using JoinFunction = std::function<std::unique_ptr<bootstrap::Bootstrap>(const std::string& blob, Deadline)>;
// Makes this rank's transport (tests: the in-process one); empty: make_transport(options.transport).
using TransportFactory = std::function<std::unique_ptr<transport::Transport>(const transport::TransportConfig&)>;

class CommImpl {
 public:
  // Creates the transport, joins through `join`, and hands every peer's
  // endpoint to the transport. `server` (may be null) is kept alive with the
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
  void send(const void* buf, std::size_t count, DataType type, int dest, int tag, Timeout timeout = {});
  std::size_t recv(void* buf, std::size_t count, DataType type, int source, int tag, Timeout timeout = {});
  // See Comm::abort.
  [[noreturn]] void abort(const std::string& reason);

  // The algorithm `allreduce`/`bcast` would use for a message of `bytes`:
  // the option when set, else the choice table (a short search, no model).
  // Callable on a broken communicator.
  AllreduceAlgo allreduce_algo_for(std::size_t bytes) const;
  // The link model measured (or assumed) at creation, and the table built from it.
  const LinkModel& link_model() const noexcept { return link_model_; }
  const collectives::ChoiceTable& choices() const noexcept { return *choices_; }
  BcastAlgo bcast_algo_for(std::size_t bytes) const;

 private:
  // Runs one blocking call: body(deadline, label). A template, not a
  // std::function: this wraps every small-message call.
  template <typename Body>
  void run(const diagnostics::CallInfo& call, Timeout timeout, Body&& body) {
    auto label = [&call] { return call.label(); };
    ensure_usable(label);
    Timeout span = timeout.count() > 0 ? timeout : options_.timeout;
    Deadline deadline = Deadline::after(span);
    diagnostics::CallWatch watch(call, *state_, call.collective() ? &*diagnosis_ : nullptr,
                    deadline.at() - span + diagnostics::HangDiagnosis::slow_after(span));
    transport::ScopedWaitObserver observe(&watch, core_sharing_.spin_mode());
    state_->enter(call);
    try {
      body(deadline, LazyText(label));
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
      return post_request();
    } catch (const Error&) {
      fail(call);
    }
  }
  void ensure_usable(const LazyText& label) const;
  // Inside a catch handler: rethrows the error being handled, completed
  // with what the side channel knows; a TimeoutError or IoError also breaks
  // the communicator (break_down).
  [[noreturn]] void fail(const diagnostics::CallInfo& call);
  // Inside a catch handler: rethrows the Error being handled after breaking
  // the communicator down, an IoError completed with the first failure the
  // side channel knows of along its peer's chain ("first failure: rank 3,
  // peer 2: ..."). What fail() does for IoError and other Errors, and what
  // the start-up timing (no user call) does for every error.
  [[noreturn]] void rethrow_broken();
  void break_down(int peer, const Error& error);
  std::uint64_t next_sequence() noexcept { return sequence_++; }
  // Where ranks share the host's `shared_cores` cores (0: they do not) and
  // the link was measured: the allreduce candidates timed on this
  // communicator (allreduce_timing.hpp); else none.
  std::optional<collectives::AllreduceTimes> shared_core_timing(int shared_cores, Deadline deadline);
  std::size_t segment_bytes() const;
  // How this communicator's collectives run: its transport, segment, tree
  // layout and core sharing, with the call's tags, deadline and label.
  collectives::Context call_context(transport::Tag tag_base, Deadline deadline, const LazyText& label) const;
  // IoError once the communicator failed.
  const transport::Capabilities& capabilities() const;

  Options options_;
  // Destroyed in reverse order: the transport first (it may use the
  // bootstrap until then), then the bootstrap client, then the service.
  std::unique_ptr<bootstrap::BootstrapServer> server_;
  std::unique_ptr<bootstrap::Bootstrap> bootstrap_;
  std::unique_ptr<transport::Transport> transport_;
  std::string transport_name_;
  std::optional<diagnostics::HangDiagnosis> diagnosis_;
  std::optional<diagnostics::FailureReport> failures_;
  // Algorithm per message size, built once at creation from the (measured
  // or fallback) link model; identical on every rank.
  LinkModel link_model_;
  std::optional<collectives::ChoiceTable> choices_;
  std::shared_ptr<diagnostics::CallState> state_;
  CoreSharing core_sharing_;
  // Placement of the ranks in bcast trees; identical on every rank.
  collectives::TreeLayout tree_layout_;
  bool ranks_share_cores_;
  std::uint64_t sequence_ = 0;
  std::string broken_reason_;
};

}  // namespace rcoll::comm
