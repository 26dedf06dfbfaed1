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
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "bootstrap/tcp_server.hpp"
#include "collectives/collectives.hpp"
#include "comm/call_guard.hpp"
#include "comm/host_layout.hpp"
#include "comm/pending_call.hpp"
#include "comm/progress_thread.hpp"
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
#include "rcoll/store.hpp"
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

// How a call runs: on the caller's stack until this rank's part is done
// (the blocking calls), or issued as an operation that an rcoll::Request
// completes (the i-calls).
enum class Mode : std::uint8_t { blocking, issued };

// The counts and displacements a v-variant's schedule reads: the caller's
// arrays for a blocking call, copies for an issued one (the caller may
// free its arrays once the issuing call returns).
class CallArrays {
 public:
  explicit CallArrays(Mode mode) noexcept : copy_(mode == Mode::issued) {}
  std::span<const std::size_t> keep(std::span<const std::size_t> values) {
    return copy_ ? std::span<const std::size_t>(kept_.emplace_back(values.begin(), values.end())) : values;
  }
  std::vector<std::vector<std::size_t>> take() && { return std::move(kept_); }

 private:
  bool copy_;
  std::vector<std::vector<std::size_t>> kept_;
};

// What a communicator shares with every one split from the same first one
// (split.cpp). Used by one thread at a time (they share a call guard).
struct Family {
  // The lowest communicator id this process has not used over the first
  // communicator's transport.
  std::uint64_t next_comm_id = 1;
  // Their plans by (size, shared cores) (CommImpl::make_plan).
  std::map<std::pair<int, int>, std::shared_ptr<const tuning::Plan>> plans;
};

// What makes a sub-communicator (split.cpp).
struct SubSpec {
  std::vector<int> root_ranks;  // its ranks' ranks in the first communicator (index = rank here)
  int rank = 0;                 // this process's rank in it
  std::uint64_t id = 0;         // its communicator id (tags.hpp)
  int color = 0;
};

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
  // A sub-communicator of `parent` (split.cpp; made by split()): `spec`
  // says which ranks of the job's first communicator it has and its id.
  CommImpl(CommImpl& parent, const SubSpec& spec);
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
  // The collectives run in `mode`: blocking returns once this rank's part
  // is complete (and returns null); issued returns at the call's first
  // wait, with the call in flight (nonblocking.cpp). One body for both.
  PendingCallPtr allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                           Timeout timeout = {}, Mode mode = Mode::blocking);
  PendingCallPtr bcast(void* buf, std::size_t count, DataType type, int root, Timeout timeout = {},
                       Mode mode = Mode::blocking);
  PendingCallPtr barrier(Timeout timeout = {}, Mode mode = Mode::blocking);
  // The MPI-style set (collective_set.cpp); arguments as in Comm, the
  // in-place sentinel resolved here.
  PendingCallPtr reduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op, int root,
                        Timeout timeout = {}, Mode mode = Mode::blocking);
  PendingCallPtr allgather(const void* send, void* recv, std::size_t count, DataType type, Timeout timeout = {},
                           Mode mode = Mode::blocking);
  PendingCallPtr allgatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
                            std::span<const std::size_t> displs, DataType type, Timeout timeout = {},
                            Mode mode = Mode::blocking);
  PendingCallPtr reduce_scatter(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                                Timeout timeout = {}, Mode mode = Mode::blocking);
  PendingCallPtr reduce_scatter_v(const void* send, void* recv, std::span<const std::size_t> counts, DataType type,
                                  ReduceOp op, Timeout timeout = {}, Mode mode = Mode::blocking);
  PendingCallPtr alltoall(const void* send, void* recv, std::size_t count, DataType type, Timeout timeout = {},
                          Mode mode = Mode::blocking);
  PendingCallPtr alltoallv(const void* send, std::span<const std::size_t> send_counts,
                           std::span<const std::size_t> send_displs, void* recv,
                           std::span<const std::size_t> recv_counts, std::span<const std::size_t> recv_displs,
                           DataType type, Timeout timeout = {}, Mode mode = Mode::blocking);
  PendingCallPtr gather(const void* send, void* recv, std::size_t count, DataType type, int root,
                        Timeout timeout = {}, Mode mode = Mode::blocking);
  PendingCallPtr gatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
                         std::span<const std::size_t> displs, DataType type, int root, Timeout timeout = {},
                         Mode mode = Mode::blocking);
  PendingCallPtr scatter(const void* send, void* recv, std::size_t count, DataType type, int root,
                         Timeout timeout = {}, Mode mode = Mode::blocking);
  PendingCallPtr scatterv(const void* send, std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                          void* recv, std::size_t count, DataType type, int root, Timeout timeout = {},
                          Mode mode = Mode::blocking);
  void send(const void* buf, std::size_t count, DataType type, int dest, int tag, Timeout timeout = {});
  std::size_t recv(void* buf, std::size_t count, DataType type, int source, int tag, Timeout timeout = {});
  PendingCallPtr isend(const void* buf, std::size_t count, DataType type, int dest, int tag, Timeout timeout = {});
  PendingCallPtr irecv(void* buf, std::size_t count, DataType type, int source, int tag, Timeout timeout = {});

  // A request's calls (rcoll::Request; nonblocking.cpp); a settled call
  // keeps its error for the request to throw. test() drives this thread's
  // operations once without blocking; true once `call` is settled.
  // wait_any() drives until one of `calls` (this communicator's, at least
  // one) is settled, at the latest just past their deadlines, and returns
  // its index.
  bool test(PendingCall& call);
  std::size_t wait_any(std::span<PendingCall* const> calls);
  // For a Request destroyed while its call is pending: a peer may be
  // waiting for this rank's part, which will never come, so the
  // communicator breaks down (publishing why) and its peers fail at once.
  void abandon(PendingCall& call) noexcept;
  // See Comm::abort.
  [[noreturn]] void abort(const std::string& reason);

  // The plan every collective follows, built at creation from facts every
  // rank has: identical on every rank. Callable on a broken communicator.
  const tuning::Plan& plan() const noexcept { return *plan_; }
  // The link model measured (or assumed) at creation, the plan's input.
  const tuning::LinkModel& link_model() const noexcept { return link_model_; }
  // Which ranks share this rank's host, from every rank's join card.
  const HostLayout& host_layout() const noexcept { return layout_; }
  // Held by every public call (Comm) for its duration: one call at a time,
  // on this communicator and every one split from the same first one (they
  // share its transport).
  CallGuard& call_guard() noexcept { return *call_guard_; }
  // The family's progress thread (Options::progress); null when calls run
  // on the caller's thread.
  const std::shared_ptr<ProgressThread>& progress_thread() const noexcept { return progress_; }
  // Runs `f` where this communicator's calls run: on the progress thread
  // when there is one, else here. Every entry from Comm and Request goes
  // through it.
  template <typename F>
  std::invoke_result_t<F&> on_progress_thread(F&& f) {
    if (progress_) return progress_->execute(f);
    return f();
  }

  // Comm::split (split.cpp): collective over this communicator. The ranks
  // with the same `color` get a new communicator, ranked by (`key`, rank
  // here); a negative color gets none (null).
  std::unique_ptr<CommImpl> split(int color, int key, Timeout timeout);
  // Comm::create_group (split.cpp): only the listed ranks call it; they
  // agree on the id through `store`.
  std::unique_ptr<CommImpl> create_group(std::span<const int> ranks, rcoll::Store& store, Timeout timeout);
  // A rank here as a rank of the first communicator.
  int root_rank(int r) const { return root_ranks_.empty() ? r : root_ranks_[static_cast<std::size_t>(r)]; }

 private:
  // create_group: this rank's place in `ranks`, after checking the list.
  int group_position(std::span<const int> ranks) const;
  // Runs one blocking call: body(deadline, label). A template, not a
  // std::function: this wraps every small-message call.
  template <typename Body>
  void run(const diagnostics::CallInfo& call, Timeout timeout, Body&& body) {
    auto label = [&call] { return call.label(); };
    if (!pending_.empty()) settle_finished();
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
  // Issues `body` (as run() would run it) as an operation: it runs until
  // its first wait and is then left to the waits of this thread. A body
  // that also takes the PendingCall& may write its results there.
  template <typename Body>
  PendingCallPtr issue(const diagnostics::CallInfo& call, Timeout timeout, Body&& body,
                       CallArrays arrays = CallArrays(Mode::blocking)) {
    if (!pending_.empty()) settle_finished();
    ensure_usable([&call] { return call.label(); });
    const Timeout span = timeout.count() > 0 ? timeout : options_.timeout;
    auto pending = std::make_shared<PendingCall>(call, Deadline::after(span), *this);
    pending->kept = std::move(arrays).take();
    const auto start = pending->deadline.at() - span;
    pending->watch.emplace(pending->call, *state_, call.collective() ? &*diagnosis_ : nullptr,
                           diagnostics::FailureWatch(&*failures_, rank(), start),
                           start + diagnostics::HangDiagnosis::slow_after(span));
    PendingCall* p = pending.get();
    pending->operation = transport::start(*transport_, [this, p, body = std::forward<Body>(body)]() mutable {
      BodyEnd end{p};
      transport::ScopedWaitObserver observe(&*p->watch, spin_);
      auto label = [p] { return p->call.label(); };
      try {
        if constexpr (std::is_invocable_v<Body&, Deadline, const LazyText&, PendingCall&>)
          body(p->deadline, LazyText(label), *p);
        else
          body(p->deadline, LazyText(label));
      } catch (const std::bad_alloc&) {
        throw_out_of_memory(p->call);
      }
    });
    pending_.push_back(pending);
    return pending;
  }
  // run() or issue(), as `mode` says; null when blocking.
  template <typename Body>
  PendingCallPtr run_in(Mode mode, const diagnostics::CallInfo& call, Timeout timeout, Body&& body,
                        CallArrays arrays = CallArrays(Mode::blocking)) {
    if (mode == Mode::issued) return issue(call, timeout, std::forward<Body>(body), std::move(arrays));
    run(call, timeout, body);
    return nullptr;
  }
  // Settles every pending call whose operation has finished (settle()).
  void settle_finished();
  // Handles the outcome of `call`'s finished operation as a blocking call's
  // (fail(): a TimeoutError or IoError breaks the communicator) and keeps
  // the error for the request.
  void settle(PendingCall& call) noexcept;
  // Cancels and settles every pending call with IoError "`why`" (the
  // communicator broke down or is being destroyed).
  void cancel_pending(const std::string& why) noexcept;
  // Posts one point-to-point request: post_request() returns it. Errors
  // take the same path as in run(). A request that is already done needs
  // no run(): no deadline, no wait, no call state (a small send usually
  // leaves inside isend), which is most of a small message's overhead.
  template <typename Post>
  transport::RequestPtr post(const diagnostics::CallInfo& call, Post&& post_request) {
    if (!pending_.empty()) settle_finished();
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
  // The checks of send / isend and recv / irecv (InvalidArgument), and their description.
  diagnostics::CallInfo send_call(const void* buf, std::size_t count, DataType type, int dest, int tag,
                                  Timeout timeout) const;
  diagnostics::CallInfo recv_call(const void* buf, std::size_t count, DataType type, int source, int tag,
                                  Timeout timeout) const;
  void break_down(int peer, const Error& error);
  std::uint64_t next_sequence() noexcept { return sequence_++; }
  // The constructor's steps: join with this rank's card and connect the
  // transport to its peers; then measure the link and make the plan.
  void join_job(const JoinFunction& join, Deadline deadline);
  void plan_job(Deadline deadline);
  // The plan for this communicator's size and layout from link_model_.
  void make_plan();
  // Runs or issues collective `call` as the plan's `choice` says: the
  // RCOLL_CHECK exchange when asked, then schedule(context) with the call's
  // tags, deadline and label and the choice's segment and depth. The
  // schedule is kept by value: an issued call outlives its caller's frame.
  template <typename Choice, typename Schedule>
  PendingCallPtr run_collective(Mode mode, const diagnostics::CallInfo& call, const Choice& choice, Timeout timeout,
                                Schedule schedule, CallArrays arrays = CallArrays(Mode::blocking)) {
    auto body = [this, call, choice, schedule](Deadline deadline, const LazyText& label) {
      const auto algorithm = choice.algorithm->id;
      if (log::get().should_log(spdlog::level::debug))
        log::debug("{}: algorithm {}, segment {}", label.str(), to_string(algorithm), choice.segment);
      const transport::Tag tags = collective_tag_base(call.sequence);
      if (options_.check)
        diagnostics::check_call(*transport_, call, static_cast<std::uint8_t>(algorithm), check_tag(call.sequence),
                                deadline, label);
      schedule(collectives::Context{*transport_, tags, deadline, choice.segment, choice.depth, label});
    };
    return run_in(mode, call, timeout, std::move(body), std::move(arrays));
  }

  Options options_;
  // Destroyed in reverse order: the transport first (it may use the
  // bootstrap until then), then the bootstrap client, then the service.
  // Shared with the sub-communicators split from this one, which use the
  // service and the first communicator's store and transport.
  std::shared_ptr<bootstrap::BootstrapServer> server_;
  std::shared_ptr<bootstrap::Bootstrap> bootstrap_;
  std::shared_ptr<transport::Transport> transport_;
  // For a sub-communicator: the first communicator's bootstrap and
  // transport, and its rank of each rank here. Null and empty in the first.
  std::shared_ptr<bootstrap::Bootstrap> root_bootstrap_;
  std::shared_ptr<transport::Transport> root_transport_;
  std::vector<int> root_ranks_;
  std::string transport_name_;
  std::optional<diagnostics::HangDiagnosis> diagnosis_;
  std::optional<diagnostics::FailureReport> failures_;
  std::shared_ptr<diagnostics::CallState> state_;
  HostLayout layout_;
  tuning::LinkModel link_model_;
  std::shared_ptr<const tuning::Plan> plan_;
  // How waits spin: yielding where this host's ranks outnumber its CPUs.
  transport::SpinMode spin_ = transport::SpinMode::pure;
  std::uint64_t sequence_ = 0;
  std::string broken_reason_;
  // The issued calls not yet settled, in issue order.
  std::vector<PendingCallPtr> pending_;
  std::shared_ptr<CallGuard> call_guard_ = std::make_shared<CallGuard>();
  std::shared_ptr<Family> family_ = std::make_shared<Family>();
  // Declared last: its thread is stopped (when this holds the last
  // reference) after the rest of this communicator is gone.
  std::shared_ptr<ProgressThread> progress_;
};

}  // namespace rcoll::comm
