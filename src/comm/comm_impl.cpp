#include "comm/comm_impl.hpp"

#include <cstring>

#include "bootstrap/tcp_server.hpp"
#include "collectives/collectives.hpp"
#include "comm/tags.hpp"
#include "comm/validate.hpp"
#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "transport/factory.hpp"
#include "transport/wait.hpp"

namespace rcoll::detail {

CommImpl::CommImpl(const Options& options, const JoinFunction& join,
                   std::unique_ptr<bootstrap::BootstrapServer> server)
    : options_(options), server_(std::move(server)) {
  validate_options(options_);
  log::set_rank(options_.rank);
  Deadline deadline = Deadline::after(options_.timeout);
  transport::TransportConfig config;
  config.rank = options_.rank;
  config.size = options_.size;
  config.job_token = options_.job_token;
  config.socket_ifname = options_.socket_ifname;
  config.connect_timeout = options_.timeout;
  transport_ = transport::make_transport(options_.transport, config);
  bootstrap_ = join(transport_->local_endpoint(), deadline);
  transport_->attach_bootstrap(*bootstrap_);
  transport_->set_peer_endpoints(bootstrap_->members());
  log::info("joined: rank {} of {}, transport {}", options_.rank, options_.size, transport_->name());
  if (options_.rank == 0 && log::get().should_log(spdlog::level::info))
    log::info("algorithm choice for {} ranks over {}:\n{}", options_.size, transport_->name(),
              collectives::describe_choices(options_.size, transport_->capabilities()));
}

CommImpl::~CommImpl() = default;

Deadline CommImpl::call_deadline() const { return Deadline::after(options_.timeout); }

std::size_t CommImpl::segment_bytes() const {
  if (options_.segment_bytes > 0) return options_.segment_bytes;
  std::size_t preferred = transport_->capabilities().preferred_segment;
  return preferred > 0 ? preferred : std::size_t(256) << 10;
}

AllreduceAlgo CommImpl::allreduce_algo_for(std::size_t bytes) const {
  if (options_.allreduce_algo != AllreduceAlgo::automatic) return options_.allreduce_algo;
  return collectives::choose_allreduce(bytes, size(), transport_->capabilities());
}

BcastAlgo CommImpl::bcast_algo_for(std::size_t bytes) const {
  if (options_.bcast_algo != BcastAlgo::automatic) return options_.bcast_algo;
  return collectives::choose_bcast(bytes, size(), transport_->capabilities());
}

void CommImpl::ensure_usable(const LazyText& label) const {
  if (!broken_reason_.empty())
    throw IoError(rank(), -1, label.str(), "communicator is unusable after an earlier failure: " + broken_reason_);
}

void CommImpl::remember_failure(const Error& e) {
  if (dynamic_cast<const InvalidArgument*>(&e) != nullptr) return;
  broken_reason_ = e.what();
  log::error("{}", e.what());
}

void CommImpl::allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) {
  constexpr std::string_view call = "allreduce";
  std::size_t bytes = checked_bytes(rank(), call, count, type);
  check_op(rank(), call, op);
  check_buffer(rank(), call, "send", send, count);
  check_buffer(rank(), call, "recv", recv, count);
  std::uint64_t sequence = next_sequence();
  auto label = [&] { return fmt::format("allreduce #{} ({} x {}, {})", sequence, count, to_string(type), to_string(op)); };
  AllreduceAlgo algo = allreduce_algo_for(bytes);
  if (log::get().should_log(spdlog::level::debug)) log::debug("{}: algorithm {}", label(), to_string(algo));
  guarded(label, [&] {
    collectives::Context ctx{*transport_, collective_tag_base(sequence), call_deadline(), segment_bytes(), label};
    collectives::allreduce(ctx, algo, send, recv, count, type, op);
  });
}

void CommImpl::bcast(void* buf, std::size_t count, DataType type, int root) {
  constexpr std::string_view call = "bcast";
  std::size_t bytes = checked_bytes(rank(), call, count, type);
  check_buffer(rank(), call, "data", buf, count);
  check_peer(rank(), size(), call, "root", root);
  std::uint64_t sequence = next_sequence();
  auto label = [&] { return fmt::format("bcast #{} ({} x {}, root {})", sequence, count, to_string(type), root); };
  BcastAlgo algo = bcast_algo_for(bytes);
  if (log::get().should_log(spdlog::level::debug)) log::debug("{}: algorithm {}", label(), to_string(algo));
  guarded(label, [&] {
    collectives::Context ctx{*transport_, collective_tag_base(sequence), call_deadline(), segment_bytes(), label};
    collectives::bcast(ctx, algo, buf, bytes, root);
  });
}

void CommImpl::barrier() {
  std::uint64_t sequence = next_sequence();
  auto label = [&] { return fmt::format("barrier #{}", sequence); };
  guarded(label, [&] {
    collectives::Context ctx{*transport_, collective_tag_base(sequence), call_deadline(), segment_bytes(), label};
    collectives::barrier(ctx);
  });
}

void CommImpl::send(const void* buf, std::size_t count, DataType type, int dest, int tag) {
  constexpr std::string_view call = "send";
  std::size_t bytes = checked_bytes(rank(), call, count, type);
  check_buffer(rank(), call, "send", buf, count);
  check_peer(rank(), size(), call, "destination", dest);
  check_user_tag(rank(), call, tag);
  if (dest == rank()) throw InvalidArgument("rank " + std::to_string(rank()) + ": send: sending to itself is not supported");
  auto label = [&] { return fmt::format("send to rank {} tag {}", dest, tag); };
  guarded(label, [&] {
    auto request = transport_->isend(dest, user_tag(tag), buf, bytes);
    transport::wait(*transport_, request, call_deadline(), label);
  });
}

std::size_t CommImpl::recv(void* buf, std::size_t count, DataType type, int source, int tag) {
  constexpr std::string_view call = "recv";
  std::size_t bytes = checked_bytes(rank(), call, count, type);
  check_buffer(rank(), call, "recv", buf, count);
  check_peer(rank(), size(), call, "source", source);
  check_user_tag(rank(), call, tag);
  if (source == rank())
    throw InvalidArgument("rank " + std::to_string(rank()) + ": recv: receiving from itself is not supported");
  auto label = [&] { return fmt::format("recv from rank {} tag {}", source, tag); };
  std::size_t received = 0;
  guarded(label, [&] {
    auto request = transport_->irecv(source, user_tag(tag), buf, bytes);
    transport::wait(*transport_, request, call_deadline(), label);
    received = request->bytes();
  });
  if (received % dtype_size(type) != 0)
    throw IoError(rank(), source, label(),
                  "received " + std::to_string(received) + " bytes, not a whole number of " +
                      std::string(to_string(type)) + " elements");
  return received / dtype_size(type);
}

}  // namespace rcoll::detail
