#include "support/transport_fixture.hpp"

#include <chrono>
#include <stdexcept>

#include "bootstrap/in_memory.hpp"
#include "comm/environment.hpp"
#include "common/deadline.hpp"
#include "support/run_ranks.hpp"
#include "transport/factory.hpp"
#include "transport/inproc/inproc_transport.hpp"
#include "transport/tcp/tcp_transport.hpp"
#include "transport/wait.hpp"
#if RCOLL_WITH_RDMA
#include "transport/rdma/rdma_transport.hpp"
#endif

namespace rcoll::test {
namespace {

using namespace std::chrono_literals;

TransportWorld inproc_world(int size) {
  auto fabric = std::make_shared<transport::InprocFabric>(size);
  TransportWorld world;
  for (int r = 0; r < size; ++r) world.ranks.push_back(fabric->endpoint(r));
  world.keep_alive = fabric;
  return world;
}

TransportWorld tcp_world(int size) {
  TransportWorld world;
  std::vector<PeerEndpoint> endpoints;
  for (int r = 0; r < size; ++r) {
    transport::TransportConfig config;
    config.rank = r;
    config.size = size;
    config.job_token = "contract-test";
    config.socket_ifname = "127.0.0.1";
    config.connect_timeout = std::chrono::seconds(5);
    world.ranks.push_back(transport::make_tcp_transport(config));
    endpoints.push_back({"127.0.0.1", world.ranks.back()->local_endpoint()});
  }
  for (auto& t : world.ranks) t->set_peer_endpoints(endpoints);
  return world;
}

#if RCOLL_WITH_RDMA
// The RCOLL_IB_* settings (device choice), with the mode of `backend` and
// small rendezvous chunks: TCG-emulated Soft-RoCE moves tens of MB/s.
transport::rdma::RdmaOptions rdma_options(const std::string& backend) {
  using transport::rdma::ConnectMode;
  using transport::rdma::PollMode;
  auto options = comm::rdma_options_from_env();
  options.chunk_bytes = 64 * 1024;
  options.discovery_interval = 5ms;
  options.connect = ConnectMode::bootstrap;
  options.poll = PollMode::automatic;
  if (backend == "rdma_busy") options.poll = PollMode::busy;
  else if (backend == "rdma_event") options.poll = PollMode::event;
  else if (backend == "rdma_rdmacm") options.connect = ConnectMode::rdmacm;
  else if (backend != "rdma") throw std::invalid_argument("unknown transport backend '" + backend + "'");
  return options;
}

// The bootstraps the RDMA transports exchange connection data through.
struct RdmaShared {
  std::unique_ptr<bootstrap::InMemoryRendezvous> rendezvous;
  std::vector<std::unique_ptr<bootstrap::Bootstrap>> bootstraps;
};

TransportWorld rdma_world(const std::string& backend, int size) {
  const auto options = rdma_options(backend);
  auto shared = std::make_shared<RdmaShared>();
  shared->rendezvous = std::make_unique<bootstrap::InMemoryRendezvous>(size);
  shared->bootstraps.resize(static_cast<std::size_t>(size));
  TransportWorld world;
  world.keep_alive = shared;
  for (int r = 0; r < size; ++r) {
    transport::TransportConfig config;
    config.rank = r;
    config.size = size;
    config.job_token = "contract-test";
    config.connect_timeout = 30s;
    world.ranks.push_back(transport::make_rdma_transport(config, options));
  }
  run_ranks(size, [&](int r) {  // join blocks until every rank joined
    shared->bootstraps[static_cast<std::size_t>(r)] =
        shared->rendezvous->join(r, world.at(r).local_endpoint(), Deadline::after(30s));
  });
  for (int r = 0; r < size; ++r) {
    auto& bootstrap = *shared->bootstraps[static_cast<std::size_t>(r)];
    world.at(r).attach_store(bootstrap);
    world.at(r).set_peer_endpoints(bootstrap.members());
  }
  return world;
}
#endif

}  // namespace

std::vector<std::string> transport_backends() {
  return {"inproc", "tcp", "rdma", "rdma_busy", "rdma_event", "rdma_rdmacm"};
}

bool is_rdma_backend(const std::string& backend) { return backend.rfind("rdma", 0) == 0; }

std::string backend_unavailable_reason(const std::string& backend) {
  if (!is_rdma_backend(backend)) return {};
  static const std::string why = transport::rdma_unavailable_reason(comm::rdma_options_from_env());
  if (why.empty()) return {};
  if (!RCOLL_WITH_RDMA) return why;  // the build's reason, not the machine's
  return "no RDMA device: run ctest -L rdma to run this in the Soft-RoCE guest (" + why + ")";
}

TransportWorld make_transport_world(const std::string& backend, int size) {
  if (backend == "inproc") return inproc_world(size);
  if (backend == "tcp") return tcp_world(size);
#if RCOLL_WITH_RDMA
  if (is_rdma_backend(backend)) return rdma_world(backend, size);
#endif
  throw std::invalid_argument("unknown transport backend '" + backend + "'");
}

void send_bytes(transport::Transport& t, int peer, transport::Tag tag, const Bytes& data, Deadline deadline) {
  transport::wait(t, t.isend(peer, tag, data.data(), data.size()), deadline, "test send");
}

Bytes recv_bytes(transport::Transport& t, int peer, transport::Tag tag, std::size_t capacity, Deadline deadline) {
  Bytes data(capacity);
  auto request = t.irecv(peer, tag, data.data(), data.size());
  transport::wait(t, request, deadline, "test recv");
  data.resize(request->bytes());
  return data;
}

}  // namespace rcoll::test
