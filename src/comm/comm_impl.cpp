#include "comm/comm_impl.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "bootstrap/tcp_server.hpp"
#include "collectives/collectives.hpp"
#include "comm/environment.hpp"
#include "comm/message_fit.hpp"
#include "comm/rank_card.hpp"
#include "comm/shared_settings.hpp"
#include "comm/tags.hpp"
#include "comm/validate.hpp"
#include "common/log.hpp"
#include "diagnostics/blocked_send.hpp"
#include "diagnostics/call_check.hpp"
#include "diagnostics/status_report.hpp"
#include "rcoll/comm.hpp"
#include "rcoll/errors.hpp"
#include "topology/host.hpp"
#include "transport/factory.hpp"
#include "transport/wait.hpp"
#include "tuning/planner.hpp"

namespace rcoll::comm {
namespace {

// How long a timed-out collective waits for the other ranks' diagnosis keys.
constexpr auto diagnosis_grace = std::chrono::milliseconds(200);
// Bound on Comm::abort's publication of its reason.
constexpr auto abort_publish_bound = std::chrono::seconds(1);

transport::TransportConfig transport_config(const Options& options, const ProcessSettings& settings) {
  transport::TransportConfig config;
  config.rank = options.rank;
  config.size = options.size;
  config.job_token = options.job_token;
  config.socket_ifname = options.socket_ifname;
  config.job_route = options.bootstrap;
  config.connect_timeout = options.timeout;
  config.rdma = settings.rdma;
  config.tcp_send_buffer = settings.tcp_send_buffer;
  return config;
}

}  // namespace

CommImpl::CommImpl(const Options& options, const JoinFunction& join,
                   std::unique_ptr<bootstrap::BootstrapServer> server, const TransportFactory& make_transport)
    : options_(options), server_(std::move(server)), state_(std::make_shared<diagnostics::CallState>(options.rank)) {
  validate_options(options_);
  const ProcessSettings settings = process_settings_from_env(options_.rank);
  if (settings.log_level) log::set_level_from("RCOLL_LOG", *settings.log_level);
  log::set_rank(options_.rank);
  Deadline deadline = Deadline::after(options_.timeout);
  const transport::TransportConfig config = transport_config(options_, settings);
  transport_ = make_transport ? make_transport(config) : transport::make_transport(options_.transport, config);
  transport_name_ = std::string(transport_->name());
  join_job(join, deadline);
  diagnosis_.emplace(*bootstrap_, options_.rank, options_.size);
  failures_.emplace(*bootstrap_, options_.rank, options_.size);
  if (settings.status_signal) diagnostics::status::enable_signal();
  diagnostics::status::track(state_);
  log::info("joined: rank {} of {} (local {} of {} on a host of {} CPUs, {} hosts), transport {}", options_.rank,
            options_.size, layout_.local_rank, layout_.local_size, topology::this_host().cpus, layout_.hosts,
            transport_name_);
  plan_job(deadline);
  // From here on only the progress thread touches the transport.
  if (options_.progress == Progress::thread) progress_ = std::make_shared<ProgressThread>(transport_);
}

CommImpl::~CommImpl() {
  if (pending_.empty()) return;
  settle_finished();
  if (pending_.empty()) return;
  std::string calls;
  for (const auto& pending : pending_) calls += (calls.empty() ? "" : ", ") + pending->call.label();
  // Peers may wait for this rank's part of those calls: they fail at once
  // (naming this reason) instead of at their timeout.
  break_down(-1, IoError(rank(), -1, "destroying the communicator",
                         "destroyed with " + std::to_string(pending_.size()) + " calls pending: " + calls));
}

void CommImpl::join_job(const JoinFunction& join, Deadline deadline) {
  const topology::Host& host = topology::this_host();
  const RankCard mine{host.identity, host.cpus, shared_settings(options_, *transport_), transport_->local_endpoint()};
  bootstrap_ = join(encode(mine), deadline);
  const std::vector<RankCard> cards = read_cards(bootstrap_->members(), options_.rank);
  check_same_settings(cards, options_.rank);
  layout_ = comm::host_layout(cards, options_.rank);
  // A rank that shares its host's CPUs with more ranks than there are lets
  // them run while it spins; with a core of its own a yield only delays it.
  spin_ = layout_.local_size > host.cpus ? transport::SpinMode::yield : transport::SpinMode::pure;
  transport_->attach_store(*bootstrap_);
  transport_->set_peer_endpoints(transport_endpoints(bootstrap_->members(), cards));
}

void CommImpl::plan_job(Deadline deadline) {
  link_model_ = tuning::calibrate_link(options_.calibrate, *transport_, calibration_tag, *bootstrap_, deadline);
  if (link_model_.measured) log::debug("calibration took {:.2f} ms", link_model_.seconds * 1e3);
  make_plan();
}

void CommImpl::make_plan() {
  // Every input but the size and the shared cores is the first
  // communicator's, so a sub-communicator of a size and layout seen before
  // (a dup, a second split into rows) takes that plan.
  const std::pair<int, int> key{options_.size, layout_.shared_cores};
  if (auto known = family_->plans.find(key); known != family_->plans.end()) {
    plan_ = known->second;
    return;
  }
  tuning::PlanInputs inputs;
  inputs.model = {options_.size, link_model_.link, layout_.shared_cores};
  inputs.link_source = link_model_.source();
  inputs.transport = transport_name_;
  inputs.eager_limit = transport_->capabilities().eager_limit;
  inputs.preferred_segment = transport_->capabilities().preferred_segment;
  inputs.overrides = {options_.allreduce_algo,      options_.bcast_algo,         options_.segment_bytes,
                      options_.reduce_algo,         options_.allgather_algo,     options_.reduce_scatter_algo,
                      options_.alltoall_algo,       options_.gather_algo,        options_.scatter_algo};
  plan_ = std::make_shared<const tuning::Plan>(tuning::make_plan(inputs));
  family_->plans.emplace(key, plan_);
  if (options_.rank == 0 && log::get().should_log(spdlog::level::info)) log::info("{}", plan_->describe());
}

transport::Transport& CommImpl::transport() {
  if (!transport_) ensure_usable("transport");
  return *transport_;
}

void CommImpl::ensure_usable(const LazyText& label) const {
  if (!broken_reason_.empty())
    throw IoError(rank(), -1, label.str(), "communicator is unusable after an earlier failure: " + broken_reason_);
}

void CommImpl::throw_out_of_memory(const diagnostics::CallInfo& call) const {
  throw ResourceError("rank " + std::to_string(rank()) + ": " + call.label() +
                      ": out of memory (std::bad_alloc) while communicating");
}

void CommImpl::fail(const diagnostics::CallInfo& call) {
  try {
    throw;
  } catch (const InvalidArgument&) {
    throw;  // nothing was sent (or every rank raised it: MismatchError); still usable
  } catch (const MessageError&) {
    throw;  // one received message did not fit (message_fit.hpp); still usable
  } catch (const TimeoutError& e) {
    std::string what = e.what();
    std::vector<int> not_joined;
    if (call.collective()) {
      auto finding = diagnosis_->explain(call, std::min(diagnosis_grace, options_.timeout));
      what += "; " + finding.text;
      not_joined = std::move(finding.not_joined);
    } else if (call.kind == diagnostics::CallKind::send) {
      what += blocked_send_clause(call);
    }
    if (auto aborted = failures_->find_abort()) what += "; " + *aborted;
    TimeoutError error(what, e.waiting_for(), std::move(not_joined));
    break_down(-1, error);
    throw error;
  } catch (const IoError&) {
    if (call.collective()) diagnosis_->publish(call);  // "entered it as ...", for the others' diagnosis
    rethrow_broken();
  } catch (const Error&) {
    rethrow_broken();
  }
}

std::string CommImpl::blocked_send_clause(const diagnostics::CallInfo& call) {
  // Unknown without a transport (never here: fail() runs on a usable one): no size sentence.
  const std::size_t eager_limit = transport_ ? transport_->capabilities().eager_limit : SIZE_MAX;
  const diagnostics::BlockedSend::Transport sends{transport_name_, eager_limit};
  const std::size_t bytes = call.count * dtype_size(call.type);
  diagnostics::BlockedSend diagnosis(*bootstrap_, rank(), size());
  std::string why = diagnosis.explain(call, bytes, sends, std::min(diagnosis_grace, options_.timeout));
  return why.empty() ? why : "; " + why;
}

void CommImpl::rethrow_broken() {
  try {
    throw;
  } catch (const IoError& e) {
    std::string known = failures_->explain(e.peer());
    IoError error = known.empty() ? e : IoError(e.rank(), e.peer(), e.step(), e.cause() + "; " + known);
    break_down(e.peer(), error);
    throw error;
  } catch (const Error& e) {
    break_down(-1, e);
    throw;
  }
}

void CommImpl::break_down(int peer, const Error& error) {
  broken_reason_ = error.what();
  log::error("{}", broken_reason_);
  cancel_pending("communicator is unusable after an earlier failure: " + broken_reason_);
  failures_->publish_failure(peer, broken_reason_);
  // Closing every connection makes peers waiting on this rank fail now
  // (naming it, and through "fail/<rank>" the cause), not at their timeout.
  transport_.reset();
}

void CommImpl::abort(const std::string& reason) {
  std::string text = "rank " + std::to_string(rank()) + " aborted: " + reason;
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::string line = "rcoll: " + text + "\n";
  std::fflush(nullptr);
  [[maybe_unused]] ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
  log::error("{}", text);
  failures_->publish_abort(reason, std::min<Timeout>(abort_publish_bound, options_.timeout));
  std::fflush(nullptr);
  std::_Exit(abort_exit_code);
}

PendingCallPtr CommImpl::allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                                   Timeout timeout, Mode mode) {
  constexpr std::string_view name = "allreduce";
  std::size_t bytes = checked_bytes(rank(), name, count, type);
  check_op(rank(), name, op);
  check_buffer(rank(), name, "send", send, count);
  check_buffer(rank(), name, "recv", recv, count);
  check_no_partial_overlap(rank(), name, send, recv, bytes);
  check_timeout(rank(), name, timeout);
  const diagnostics::CallInfo call = diagnostics::CallInfo::allreduce(next_sequence(), count, type, op);
  const tuning::AllreduceChoice& choice = plan_->allreduce(bytes);
  return run_collective(mode, call, choice, timeout, [=](const collectives::Context& ctx) {
    choice.algorithm->run(ctx, send, recv, count, type, op);
  });
}

PendingCallPtr CommImpl::bcast(void* buf, std::size_t count, DataType type, int root, Timeout timeout, Mode mode) {
  constexpr std::string_view name = "bcast";
  std::size_t bytes = checked_bytes(rank(), name, count, type);
  check_buffer(rank(), name, "data", buf, count);
  check_peer(rank(), size(), name, "root", root);
  check_timeout(rank(), name, timeout);
  const diagnostics::CallInfo call = diagnostics::CallInfo::bcast(next_sequence(), count, type, root);
  const tuning::BcastChoice& choice = plan_->bcast(bytes);
  return run_collective(mode, call, choice, timeout,
                        [=](const collectives::Context& ctx) { choice.algorithm->run(ctx, buf, bytes, root); });
}

PendingCallPtr CommImpl::barrier(Timeout timeout, Mode mode) {
  check_timeout(rank(), "barrier", timeout);
  const diagnostics::CallInfo call = diagnostics::CallInfo::barrier(next_sequence());
  return run_in(mode, call, timeout, [this, call](Deadline deadline, const LazyText& label) {
    if (options_.check) diagnostics::check_call(*transport_, call, 0, check_tag(call.sequence), deadline, label);
    collectives::barrier({*transport_, collective_tag_base(call.sequence), deadline, 1, 1, label});
  });
}

diagnostics::CallInfo CommImpl::send_call(const void* buf, std::size_t count, DataType type, int dest, int tag,
                                          Timeout timeout) const {
  constexpr std::string_view name = "send";
  checked_bytes(rank(), name, count, type);
  check_buffer(rank(), name, "send", buf, count);
  check_peer(rank(), size(), name, "destination", dest);
  check_user_tag(rank(), name, tag);
  check_timeout(rank(), name, timeout);
  if (dest == rank())
    throw InvalidArgument("rank " + std::to_string(rank()) + ": send: sending to itself is not supported");
  return diagnostics::CallInfo::point_to_point(diagnostics::CallKind::send, count, type, dest, tag);
}

diagnostics::CallInfo CommImpl::recv_call(const void* buf, std::size_t count, DataType type, int source, int tag,
                                          Timeout timeout) const {
  constexpr std::string_view name = "recv";
  checked_bytes(rank(), name, count, type);
  check_buffer(rank(), name, "recv", buf, count);
  check_peer(rank(), size(), name, "source", source);
  check_user_tag(rank(), name, tag);
  check_timeout(rank(), name, timeout);
  if (source == rank())
    throw InvalidArgument("rank " + std::to_string(rank()) + ": recv: receiving from itself is not supported");
  return diagnostics::CallInfo::point_to_point(diagnostics::CallKind::recv, count, type, source, tag);
}

void CommImpl::send(const void* buf, std::size_t count, DataType type, int dest, int tag, Timeout timeout) {
  const diagnostics::CallInfo call = send_call(buf, count, type, dest, tag, timeout);
  const std::size_t bytes = count * dtype_size(type);
  transport::RequestPtr request = post(call, [&] { return transport_->isend(dest, user_tag(tag), buf, bytes); });
  if (request->state() == transport::Request::State::done) return;  // left inside isend: nothing to wait for
  run(call, timeout,
      [&](Deadline deadline, const LazyText& label) { transport::wait(*transport_, request, deadline, label); });
}

std::size_t CommImpl::recv(void* buf, std::size_t count, DataType type, int source, int tag, Timeout timeout) {
  const diagnostics::CallInfo call = recv_call(buf, count, type, source, tag, timeout);
  const std::size_t bytes = count * dtype_size(type);
  transport::RequestPtr request = post(call, [&] { return transport_->irecv(source, user_tag(tag), buf, bytes); });
  if (request->state() != transport::Request::State::done)  // not already there
    run(call, timeout,
        [&](Deadline deadline, const LazyText& label) { wait_for_message(*transport_, request, deadline, label); });
  return whole_elements(rank(), call, request->bytes(), bytes);
}

PendingCallPtr CommImpl::isend(const void* buf, std::size_t count, DataType type, int dest, int tag, Timeout timeout) {
  const diagnostics::CallInfo call = send_call(buf, count, type, dest, tag, timeout);
  const std::size_t bytes = count * dtype_size(type);
  return issue(call, timeout, [this, buf, bytes, dest, tag](Deadline deadline, const LazyText& label) {
    transport::wait(*transport_, transport_->isend(dest, user_tag(tag), buf, bytes), deadline, label);
  });
}

PendingCallPtr CommImpl::irecv(void* buf, std::size_t count, DataType type, int source, int tag, Timeout timeout) {
  const diagnostics::CallInfo call = recv_call(buf, count, type, source, tag, timeout);
  const std::size_t bytes = count * dtype_size(type);
  return issue(call, timeout,
               [this, buf, bytes, source, tag](Deadline deadline, const LazyText& label, PendingCall& pending) {
                 transport::RequestPtr request = transport_->irecv(source, user_tag(tag), buf, bytes);
                 wait_for_message(*transport_, request, deadline, label);
                 pending.received = whole_elements(rank(), pending.call, request->bytes(), bytes);
               });
}

}  // namespace rcoll::comm
