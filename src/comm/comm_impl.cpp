#include "comm/comm_impl.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bootstrap/tcp_server.hpp"
#include "collectives/collectives.hpp"
#include "comm/allreduce_timing.hpp"
#include "diagnostics/call_check.hpp"
#include "diagnostics/status_report.hpp"
#include "comm/tags.hpp"
#include "comm/validate.hpp"
#include "common/log.hpp"
#include "rcoll/comm.hpp"
#include "rcoll/errors.hpp"
#include "transport/factory.hpp"
#include "transport/wait.hpp"

namespace rcoll::comm {
namespace {

// How long a timed-out collective waits for the other ranks' diagnosis keys.
constexpr auto diagnosis_grace = std::chrono::milliseconds(200);
// Bound on Comm::abort's publication of its reason.
constexpr auto abort_publish_bound = std::chrono::seconds(1);

bool status_signal_requested() {
  const char* value = std::getenv("RCOLL_STATUS_SIGNAL");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

}  // namespace

CommImpl::CommImpl(const Options& options, const JoinFunction& join,
                   std::unique_ptr<bootstrap::BootstrapServer> server, const TransportFactory& make_transport)
    : options_(options),
      server_(std::move(server)),
      state_(std::make_shared<diagnostics::CallState>(options.rank)),
      core_sharing_(options.local_size),
      tree_layout_(CoreSharing::tree_layout(options.size, options.local_size)),
      ranks_share_cores_(CoreSharing::ranks_share_cores(options.size, options.local_size)) {
  validate_options(options_);
  log::set_rank(options_.rank);
  Deadline deadline = Deadline::after(options_.timeout);
  transport::TransportConfig config;
  config.rank = options_.rank;
  config.size = options_.size;
  config.job_token = options_.job_token;
  config.socket_ifname = options_.socket_ifname;
  config.connect_timeout = options_.timeout;
  transport_ = make_transport ? make_transport(config) : transport::make_transport(options_.transport, config);
  transport_name_ = std::string(transport_->name());
  bootstrap_ = join(transport_->local_endpoint(), deadline);
  transport_->attach_store(*bootstrap_);
  transport_->set_peer_endpoints(bootstrap_->members());
  diagnosis_.emplace(*bootstrap_, options_.rank, options_.size);
  failures_.emplace(*bootstrap_, options_.rank, options_.size);
  if (status_signal_requested()) diagnostics::status::enable_signal();
  diagnostics::status::track(state_);
  log::info("joined: rank {} of {}, transport {}", options_.rank, options_.size, transport_name_);
  link_model_ = calibrate_link(options_, *transport_, *bootstrap_, deadline);
  if (link_model_.measured) log::debug("calibration took {:.2f} ms", link_model_.seconds * 1e3);
  // Ranks that share this host's cores also share the copies of the bcast
  // links (bcast_cost), and their allreduce is timed, not modelled.
  const int shared_cores = ranks_share_cores_ ? CoreSharing::host_cpus() : 0;
  choices_.emplace(options_.size, link_model_.link, segment_bytes(), shared_cores,
                   shared_core_timing(shared_cores, deadline));
  if (options_.rank == 0 && log::get().should_log(spdlog::level::info))
    log::info("transport {}: {}", transport_name_, choices_->describe(link_model_.source()));
  if (options_.rank == 0 && tree_layout_ == collectives::TreeLayout::alternating)
    log::info("bcast trees up to the eager limit: parent and child on different cores ({} ranks share {} CPUs)",
              options_.size, CoreSharing::host_cpus());
}

CommImpl::~CommImpl() = default;

std::optional<collectives::AllreduceTimes> CommImpl::shared_core_timing(int shared_cores, Deadline deadline) {
  if (shared_cores == 0 || !link_model_.measured) return std::nullopt;
  const AllreduceTimingPlan plan;
  // The same doubles on every rank, so every rank decides alike.
  const double predicted = plan.predicted_seconds(options_.size, shared_cores, link_model_.link);
  if (predicted > timing_budget_seconds) {
    if (options_.rank == 0)
      log::info("allreduce not timed on the shared cores: the link model expects {:.0f} ms (budget {:.0f} ms); "
                "the model chooses", predicted * 1e3, timing_budget_seconds * 1e3);
    return std::nullopt;
  }
  const auto start = std::chrono::steady_clock::now();
  collectives::AllreduceTimes times;
  try {
    times = time_allreduce_algorithms(call_context(0, deadline, {}), plan);
  } catch (const Error&) {
    // As in a collective call: a rank that died is named through the
    // others' published failures, and this rank's closed connections make
    // its peers fail now.
    rethrow_broken();
  }
  log::debug("allreduce timing on shared cores took {:.2f} ms (the link model expected {:.2f} ms)",
             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
             predicted * 1e3);
  if (plausible(times)) return times;
  // A clock that ticked too coarsely for some call; identical on every rank, like the times.
  if (options_.rank == 0) log::warn("allreduce timing unusable ({}); the model chooses", describe(times));
  return std::nullopt;
}

transport::Transport& CommImpl::transport() {
  if (!transport_) ensure_usable("transport");
  return *transport_;
}

const transport::Capabilities& CommImpl::capabilities() const {
  if (!transport_) ensure_usable("communicator");
  return transport_->capabilities();
}

collectives::Context CommImpl::call_context(transport::Tag tag_base, Deadline deadline,
                                           const LazyText& label) const {
  return collectives::Context{*transport_, tag_base, deadline, segment_bytes(), label, tree_layout_,
                              ranks_share_cores_};
}

std::size_t CommImpl::segment_bytes() const {
  if (options_.segment_bytes > 0) return options_.segment_bytes;
  std::size_t preferred = capabilities().preferred_segment;
  return preferred > 0 ? preferred : std::size_t(256) << 10;
}

AllreduceAlgo CommImpl::allreduce_algo_for(std::size_t bytes) const {
  if (options_.allreduce_algo != AllreduceAlgo::automatic) return options_.allreduce_algo;
  return choices_->allreduce(bytes);
}

BcastAlgo CommImpl::bcast_algo_for(std::size_t bytes) const {
  if (options_.bcast_algo != BcastAlgo::automatic) return options_.bcast_algo;
  return choices_->bcast(bytes);
}

void CommImpl::ensure_usable(const LazyText& label) const {
  if (!broken_reason_.empty())
    throw IoError(rank(), -1, label.str(), "communicator is unusable after an earlier failure: " + broken_reason_);
}

void CommImpl::fail(const diagnostics::CallInfo& call) {
  try {
    throw;
  } catch (const InvalidArgument&) {
    throw;  // nothing was sent (or every rank raised it: MismatchError); still usable
  } catch (const TimeoutError& e) {
    std::string what = e.what();
    std::vector<int> not_joined;
    if (call.collective()) {
      auto finding = diagnosis_->explain(call, std::min(diagnosis_grace, options_.timeout));
      what += "; " + finding.text;
      not_joined = std::move(finding.not_joined);
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

void CommImpl::allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                         Timeout timeout) {
  constexpr std::string_view name = "allreduce";
  std::size_t bytes = checked_bytes(rank(), name, count, type);
  check_op(rank(), name, op);
  check_buffer(rank(), name, "send", send, count);
  check_buffer(rank(), name, "recv", recv, count);
  check_timeout(rank(), name, timeout);
  const diagnostics::CallInfo call = diagnostics::CallInfo::allreduce(next_sequence(), count, type, op);
  run(call, timeout, [&](Deadline deadline, const LazyText& label) {
    AllreduceAlgo algo = allreduce_algo_for(bytes);
    if (log::get().should_log(spdlog::level::debug)) log::debug("{}: algorithm {}", label.str(), to_string(algo));
    if (options_.check)
      diagnostics::check_call(*transport_, call, static_cast<std::uint8_t>(algo), check_tag(call.sequence), deadline,
                              label);
    const collectives::Context ctx = call_context(collective_tag_base(call.sequence), deadline, label);
    collectives::allreduce(ctx, algo, send, recv, count, type, op);
  });
}

void CommImpl::bcast(void* buf, std::size_t count, DataType type, int root, Timeout timeout) {
  constexpr std::string_view name = "bcast";
  std::size_t bytes = checked_bytes(rank(), name, count, type);
  check_buffer(rank(), name, "data", buf, count);
  check_peer(rank(), size(), name, "root", root);
  check_timeout(rank(), name, timeout);
  const diagnostics::CallInfo call = diagnostics::CallInfo::bcast(next_sequence(), count, type, root);
  run(call, timeout, [&](Deadline deadline, const LazyText& label) {
    BcastAlgo algo = bcast_algo_for(bytes);
    if (log::get().should_log(spdlog::level::debug)) log::debug("{}: algorithm {}", label.str(), to_string(algo));
    if (options_.check)
      diagnostics::check_call(*transport_, call, static_cast<std::uint8_t>(algo), check_tag(call.sequence), deadline,
                              label);
    const collectives::Context ctx = call_context(collective_tag_base(call.sequence), deadline, label);
    collectives::bcast(ctx, algo, buf, bytes, root);
  });
}

void CommImpl::barrier(Timeout timeout) {
  check_timeout(rank(), "barrier", timeout);
  const diagnostics::CallInfo call = diagnostics::CallInfo::barrier(next_sequence());
  run(call, timeout, [&](Deadline deadline, const LazyText& label) {
    if (options_.check) diagnostics::check_call(*transport_, call, 0, check_tag(call.sequence), deadline, label);
    collectives::barrier(call_context(collective_tag_base(call.sequence), deadline, label));
  });
}

void CommImpl::send(const void* buf, std::size_t count, DataType type, int dest, int tag, Timeout timeout) {
  constexpr std::string_view name = "send";
  std::size_t bytes = checked_bytes(rank(), name, count, type);
  check_buffer(rank(), name, "send", buf, count);
  check_peer(rank(), size(), name, "destination", dest);
  check_user_tag(rank(), name, tag);
  check_timeout(rank(), name, timeout);
  if (dest == rank()) throw InvalidArgument("rank " + std::to_string(rank()) + ": send: sending to itself is not supported");
  const diagnostics::CallInfo call = diagnostics::CallInfo::point_to_point(diagnostics::CallKind::send, count, type, dest, tag);
  transport::RequestPtr request = post(call, [&] { return transport_->isend(dest, user_tag(tag), buf, bytes); });
  if (request->state() == transport::Request::State::done) return;  // left inside isend: nothing to wait for
  run(call, timeout, [&](Deadline deadline, const LazyText& label) { transport::wait(*transport_, request, deadline, label); });
}

std::size_t CommImpl::recv(void* buf, std::size_t count, DataType type, int source, int tag, Timeout timeout) {
  constexpr std::string_view name = "recv";
  std::size_t bytes = checked_bytes(rank(), name, count, type);
  check_buffer(rank(), name, "recv", buf, count);
  check_peer(rank(), size(), name, "source", source);
  check_user_tag(rank(), name, tag);
  check_timeout(rank(), name, timeout);
  if (source == rank())
    throw InvalidArgument("rank " + std::to_string(rank()) + ": recv: receiving from itself is not supported");
  const diagnostics::CallInfo call = diagnostics::CallInfo::point_to_point(diagnostics::CallKind::recv, count, type, source, tag);
  transport::RequestPtr request = post(call, [&] { return transport_->irecv(source, user_tag(tag), buf, bytes); });
  if (request->state() != transport::Request::State::done)  // not already there
    run(call, timeout, [&](Deadline deadline, const LazyText& label) { transport::wait(*transport_, request, deadline, label); });
  std::size_t received = request->bytes();
  if (received % dtype_size(type) != 0)
    throw IoError(rank(), source, call.label(),
                  "received " + std::to_string(received) + " bytes, not a whole number of " +
                      std::string(to_string(type)) + " elements");
  return received / dtype_size(type);
}

}  // namespace rcoll::comm
