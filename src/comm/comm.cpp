// The public Comm: argument forwarding to CommImpl, and the two ways to
// create one (from the environment, from explicit options).
#include <algorithm>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <string_view>

#include "bootstrap/in_memory.hpp"
#include "bootstrap/store_bootstrap.hpp"
#include "bootstrap/tcp_client.hpp"
#include "bootstrap/tcp_server.hpp"
#include "comm/comm_impl.hpp"
#include "comm/environment.hpp"
#include "comm/public_call.hpp"
#include "comm/validate.hpp"
#include "common/log.hpp"
#include "diagnostics/call_info.hpp"
#include "store/caller_store.hpp"
#include "store/tcp_store_client.hpp"
#include "topology/apply.hpp"
#include "rcoll/comm.hpp"
#include "rcoll/errors.hpp"

namespace rcoll {

namespace {
Comm create_on_torchrun_store(const Options& options, const comm::TorchrunStore& torchrun);
}  // namespace

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
  if (auto torchrun = comm::torchrun_store_from_env(options.rank)) return create_on_torchrun_store(options, *torchrun);
  return create(options);
}

namespace {

// What Comm::create does; it turns a std::bad_alloc from here into a ResourceError.
Comm create_comm(const Options& options) {
  comm::validate_options(options);
  comm::validate_service_options(options);
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

// What Comm::create(options, store) does: the join goes through the
// caller's store (bootstrap/store_bootstrap.hpp), no service is started.
// `make_store` makes the internal store over it, which the communicator's
// bootstrap owns.
Comm create_comm_on_store(const Options& options, const std::function<std::unique_ptr<store::Store>()>& make_store) {
  comm::validate_options(options);
  comm::validate_store_options(options);
  log::set_rank(options.rank);
  auto join = [&](const std::string& blob, Deadline deadline) -> std::unique_ptr<bootstrap::Bootstrap> {
    return std::make_unique<bootstrap::StoreBootstrap>(make_store(), options.rank, options.size, blob, deadline);
  };
  return Comm(std::make_unique<comm::CommImpl>(options, join, nullptr));
}

// Comm::from_env under torchrun (comm/environment.hpp): the join goes
// through torchrun's own store, a TCPStore, which the communicator owns.
Comm create_comm_on_torchrun_store(Options options, const comm::TorchrunStore& torchrun) {
  // Nothing joins at this address: the transport listens on this host's
  // route to it (TransportConfig::job_route), as it does to the service's.
  options.bootstrap = torchrun.address;
  auto client = std::make_shared<store::TorchStoreClient>(torchrun.address, options.rank);
  log::info("joining through torchrun's store at {} (keys under {})", client->address(), torchrun.prefix);
  if (options.job_token.empty() && options.rank == 0)
    log::warn("no job token (RCOLL_JOB_TOKEN is unset): anyone who reaches this job's ports can join it; "
              "give every rank the same random RCOLL_JOB_TOKEN");
  return create_comm_on_store(options, [&] { return std::make_unique<store::CallerStore>(client, torchrun.prefix); });
}

[[noreturn]] void throw_join_out_of_memory(int rank) {
  throw ResourceError("rank " + std::to_string(rank) +
                      ": create: out of memory (std::bad_alloc) while joining the job");
}

Comm create_on_torchrun_store(const Options& options, const comm::TorchrunStore& torchrun) {
  try {
    return create_comm_on_torchrun_store(options, torchrun);
  } catch (const std::bad_alloc&) {
    throw_join_out_of_memory(options.rank);
  }
}

}  // namespace

Comm Comm::create(const Options& options) {
  try {
    return create_comm(options);
  } catch (const std::bad_alloc&) {
    throw_join_out_of_memory(options.rank);
  }
}

Comm Comm::create(const Options& options, Store& store) {
  try {
    return create_comm_on_store(options, [&] { return std::make_unique<store::CallerStore>(store); });
  } catch (const std::bad_alloc&) {
    throw_join_out_of_memory(options.rank);
  }
}

namespace {
// Its address is rcoll::in_place: no buffer of the caller can have it.
const std::byte in_place_marker{};
}  // namespace
const void* const in_place = &in_place_marker;

namespace {

// Destroys a communicator where its calls run: its operations live on its
// progress thread, when it has one (comm/progress_thread.hpp). That
// thread, if this was the last communicator of its family, is stopped
// afterwards, here.
void destroy(std::unique_ptr<comm::CommImpl> impl) noexcept {
  if (!impl || !impl->progress_thread()) return;
  const std::shared_ptr<comm::ProgressThread> thread = impl->progress_thread();
  try {
    thread->execute([&impl] { impl.reset(); });
  } catch (const std::exception& e) {  // only std::bad_alloc could come: the task fits std::function's own storage
    log::error("destroying a communicator on its progress thread failed ({}); destroying it here", e.what());
  }
}

}  // namespace

Comm::Comm(std::unique_ptr<comm::CommImpl> impl) : impl_(std::move(impl)) {}
Comm::Comm(Comm&&) noexcept = default;
Comm& Comm::operator=(Comm&& other) noexcept {
  if (this != &other) {
    destroy(std::move(impl_));
    impl_ = std::move(other.impl_);
  }
  return *this;
}
Comm::~Comm() { destroy(std::move(impl_)); }

using diagnostics::CallKind;
using comm::checked;
using comm::public_call;

int Comm::rank() const { return checked(impl_, "rank").rank(); }
int Comm::size() const { return checked(impl_, "size").size(); }
std::string Comm::transport_name() const { return checked(impl_, "transport_name").transport_name(); }
std::string Comm::describe_plan() const { return checked(impl_, "describe_plan").plan().describe(); }

void Comm::allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                     const CallOptions& call) {
  public_call(impl_, CallKind::allreduce, count, type,
              [&](comm::CommImpl& c) { c.allreduce(send, recv, count, type, op, call.timeout); });
}
void Comm::allreduce(void* inout, std::size_t count, DataType type, ReduceOp op, const CallOptions& call) {
  public_call(impl_, CallKind::allreduce, count, type,
              [&](comm::CommImpl& c) { c.allreduce(inout, inout, count, type, op, call.timeout); });
}
void Comm::bcast(void* buf, std::size_t count, DataType type, int root, const CallOptions& call) {
  public_call(impl_, CallKind::bcast, count, type,
              [&](comm::CommImpl& c) { c.bcast(buf, count, type, root, call.timeout); });
}
Comm Comm::split(int color, int key, const CallOptions& call) {
  return Comm(public_call(impl_, CallKind::allgather, 3, DataType::int64,
                          [&](comm::CommImpl& c) { return c.split(color, key, call.timeout); }));
}
Comm Comm::dup(const CallOptions& call) {
  return Comm(public_call(impl_, CallKind::allgather, 3, DataType::int64,
                          [&](comm::CommImpl& c) { return c.split(0, c.rank(), call.timeout); }));
}

Comm Comm::create_group(std::span<const int> ranks, Store& store, const CallOptions& call) {
  return Comm(public_call(impl_, CallKind::create_group, ranks.size(), DataType::int32,
                          [&](comm::CommImpl& c) { return c.create_group(ranks, store, call.timeout); }));
}

void Comm::barrier(const CallOptions& call) {
  public_call(impl_, CallKind::barrier, 0, DataType::uint8, [&](comm::CommImpl& c) { c.barrier(call.timeout); });
}
void Comm::send(const void* buf, std::size_t count, DataType type, int dest, int tag, const CallOptions& call) {
  public_call(impl_, CallKind::send, count, type,
              [&](comm::CommImpl& c) { c.send(buf, count, type, dest, tag, call.timeout); });
}
std::size_t Comm::recv(void* buf, std::size_t count, DataType type, int source, int tag, const CallOptions& call) {
  return public_call(impl_, CallKind::recv, count, type,
                     [&](comm::CommImpl& c) { return c.recv(buf, count, type, source, tag, call.timeout); });
}
void Comm::reduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op, int root,
                  const CallOptions& call) {
  public_call(impl_, CallKind::reduce, count, type,
              [&](comm::CommImpl& c) { c.reduce(send, recv, count, type, op, root, call.timeout); });
}
void Comm::allgather(const void* send, void* recv, std::size_t count, DataType type, const CallOptions& call) {
  public_call(impl_, CallKind::allgather, count, type,
              [&](comm::CommImpl& c) { c.allgather(send, recv, count, type, call.timeout); });
}
void Comm::allgatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
                      std::span<const std::size_t> displs, DataType type, const CallOptions& call) {
  public_call(impl_, CallKind::allgatherv, count, type,
              [&](comm::CommImpl& c) { c.allgatherv(send, count, recv, counts, displs, type, call.timeout); });
}
void Comm::reduce_scatter(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                          const CallOptions& call) {
  public_call(impl_, CallKind::reduce_scatter, count, type,
              [&](comm::CommImpl& c) { c.reduce_scatter(send, recv, count, type, op, call.timeout); });
}
void Comm::reduce_scatter_v(const void* send, void* recv, std::span<const std::size_t> counts, DataType type,
                            ReduceOp op, const CallOptions& call) {
  public_call(impl_, CallKind::reduce_scatter_v, 0, type,
              [&](comm::CommImpl& c) { c.reduce_scatter_v(send, recv, counts, type, op, call.timeout); });
}
void Comm::alltoall(const void* send, void* recv, std::size_t count, DataType type, const CallOptions& call) {
  public_call(impl_, CallKind::alltoall, count, type,
              [&](comm::CommImpl& c) { c.alltoall(send, recv, count, type, call.timeout); });
}
void Comm::alltoallv(const void* send, std::span<const std::size_t> send_counts,
                     std::span<const std::size_t> send_displs, void* recv, std::span<const std::size_t> recv_counts,
                     std::span<const std::size_t> recv_displs, DataType type, const CallOptions& call) {
  public_call(impl_, CallKind::alltoallv, 0, type, [&](comm::CommImpl& c) {
    c.alltoallv(send, send_counts, send_displs, recv, recv_counts, recv_displs, type, call.timeout);
  });
}
void Comm::gather(const void* send, void* recv, std::size_t count, DataType type, int root,
                  const CallOptions& call) {
  public_call(impl_, CallKind::gather, count, type,
              [&](comm::CommImpl& c) { c.gather(send, recv, count, type, root, call.timeout); });
}
void Comm::gatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
                   std::span<const std::size_t> displs, DataType type, int root, const CallOptions& call) {
  public_call(impl_, CallKind::gatherv, count, type,
              [&](comm::CommImpl& c) { c.gatherv(send, count, recv, counts, displs, type, root, call.timeout); });
}
void Comm::scatter(const void* send, void* recv, std::size_t count, DataType type, int root,
                   const CallOptions& call) {
  public_call(impl_, CallKind::scatter, count, type,
              [&](comm::CommImpl& c) { c.scatter(send, recv, count, type, root, call.timeout); });
}
void Comm::scatterv(const void* send, std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                    void* recv, std::size_t count, DataType type, int root, const CallOptions& call) {
  public_call(impl_, CallKind::scatterv, count, type,
              [&](comm::CommImpl& c) { c.scatterv(send, counts, displs, recv, count, type, root, call.timeout); });
}

// Not guarded: abort may come from any thread (a watchdog), and it ends the process.
void Comm::abort(const std::string& reason) { checked(impl_, "abort").abort(reason); }

void Comm::check_span(const char* call, const char* which, std::size_t expected, std::size_t got) const {
  if (got != expected)
    throw InvalidArgument("rank " + std::to_string(rank()) + ": " + call + ": " + which + " span has " +
                          std::to_string(got) + " elements, expected " + std::to_string(expected));
}

void Comm::check_extent(const char* call, const char* which, std::span<const std::size_t> counts,
                        std::span<const std::size_t> displs, std::size_t length) const {
  for (std::size_t r = 0; r < std::min(counts.size(), displs.size()); ++r) {
    if (counts[r] == 0 || (displs[r] <= length && counts[r] <= length - displs[r])) continue;
    throw InvalidArgument("rank " + std::to_string(rank()) + ": " + call + ": " + which + " block of rank " +
                          std::to_string(r) + " (" + std::to_string(counts[r]) + " at " + std::to_string(displs[r]) +
                          ") runs past the span's " + std::to_string(length) + " elements");
  }
}

std::size_t Comm::sum_of(std::span<const std::size_t> counts) noexcept {
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  return total;
}

void Comm::check_same_length(std::size_t send, std::size_t recv) const {
  if (send != recv)
    throw InvalidArgument("rank " + std::to_string(rank()) + ": allreduce: send span has " + std::to_string(send) +
                          " elements but recv span has " + std::to_string(recv));
}

}  // namespace rcoll
