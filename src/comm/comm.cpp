// The public Comm: argument forwarding to CommImpl, and the two ways to
// create one (from the environment, from explicit options).
#include <memory>

#include "bootstrap/in_memory.hpp"
#include "bootstrap/tcp_client.hpp"
#include "bootstrap/tcp_server.hpp"
#include "comm/comm_impl.hpp"
#include "comm/environment.hpp"
#include "comm/validate.hpp"
#include "common/log.hpp"
#include "topology/apply.hpp"
#include "rcoll/comm.hpp"
#include "rcoll/errors.hpp"

namespace rcoll {

Comm Comm::from_env() {
  Options options = comm::options_from_env();
  log::set_rank(options.rank);
  if (auto level = comm::process_settings_from_env(options.rank).log_level) log::set_level_from("RCOLL_LOG", *level);
  // Placement binds the whole process, so it belongs to launched ranks (one
  // process each), not to Comm::create, which tests call from several threads.
  // It runs before the transport exists so later threads inherit the binding.
  const comm::PlacementRequest placement = comm::placement_from_env(options);
  const topology::PlacementReport report =
      topology::apply_placement(placement.policy, options.local_rank, options.local_size, placement.device);
  if (placement.report) topology::print_bindings(report, options.rank, options.local_rank, options.local_size);
  return create(options);
}

Comm Comm::create(const Options& options) {
  comm::validate_options(options);
  log::set_rank(options.rank);
  if (options.size == 1 && options.bootstrap.empty()) {
    // A job of one rank needs no service: join a rendezvous of one.
    auto rendezvous = std::make_shared<bootstrap::InMemoryRendezvous>(1);
    auto join = [rendezvous](const std::string& blob, Deadline deadline) {
      return rendezvous->join(0, blob, deadline);
    };
    return Comm(std::make_unique<comm::CommImpl>(options, join, nullptr));
  }
  std::unique_ptr<bootstrap::BootstrapServer> server;
  std::string address = options.bootstrap;
  if (options.host_bootstrap) {
    bootstrap::BootstrapServer::Config config;
    config.listen = options.bootstrap;
    config.size = options.size;
    config.job_token = options.job_token;
    config.join_timeout = options.timeout;
    config.host_rank = options.rank;
    server = std::make_unique<bootstrap::BootstrapServer>(config);
    server->start();
    address = server->address();
    log::info("hosting the bootstrap service at {}", address);
    if (options.job_token.empty())
      log::warn("no job token (RCOLL_JOB_TOKEN is unset): anyone who reaches {} can join this job; "
                "give every rank the same random RCOLL_JOB_TOKEN (rcoll-run does this itself)",
                address);
  }
  auto join = [&](const std::string& blob, Deadline deadline) {
    bootstrap::JoinRequest request{address, options.job_token, options.rank, options.size, blob};
    return bootstrap::join_tcp(request, deadline);
  };
  return Comm(std::make_unique<comm::CommImpl>(options, join, std::move(server)));
}

Comm::Comm(std::unique_ptr<comm::CommImpl> impl) : impl_(std::move(impl)) {}
Comm::Comm(Comm&&) noexcept = default;
Comm& Comm::operator=(Comm&&) noexcept = default;
Comm::~Comm() = default;

int Comm::rank() const noexcept { return impl_->rank(); }
int Comm::size() const noexcept { return impl_->size(); }
std::string Comm::transport_name() const { return impl_->transport_name(); }
std::string Comm::describe_plan() const { return impl_->plan().describe(); }

void Comm::allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                     const CallOptions& call) {
  impl_->allreduce(send, recv, count, type, op, call.timeout);
}
void Comm::allreduce(void* inout, std::size_t count, DataType type, ReduceOp op, const CallOptions& call) {
  impl_->allreduce(inout, inout, count, type, op, call.timeout);
}
void Comm::bcast(void* buf, std::size_t count, DataType type, int root, const CallOptions& call) {
  impl_->bcast(buf, count, type, root, call.timeout);
}
void Comm::barrier(const CallOptions& call) { impl_->barrier(call.timeout); }
void Comm::send(const void* buf, std::size_t count, DataType type, int dest, int tag, const CallOptions& call) {
  impl_->send(buf, count, type, dest, tag, call.timeout);
}
std::size_t Comm::recv(void* buf, std::size_t count, DataType type, int source, int tag, const CallOptions& call) {
  return impl_->recv(buf, count, type, source, tag, call.timeout);
}
void Comm::abort(const std::string& reason) { impl_->abort(reason); }

void Comm::check_same_length(std::size_t send, std::size_t recv) const {
  if (send != recv)
    throw InvalidArgument("rank " + std::to_string(rank()) + ": allreduce: send span has " + std::to_string(send) +
                          " elements but recv span has " + std::to_string(recv));
}

}  // namespace rcoll
