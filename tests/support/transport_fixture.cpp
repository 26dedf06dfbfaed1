#include "support/transport_fixture.hpp"

#include <stdexcept>

#include "transport/inproc/inproc_transport.hpp"
#include "transport/tcp/tcp_transport.hpp"

namespace rcoll::test {
namespace {

TransportWorld inproc_world(int size) {
  auto fabric = std::make_shared<transport::InprocFabric>(size);
  TransportWorld world;
  for (int r = 0; r < size; ++r) world.ranks.push_back(fabric->endpoint(r));
  world.keep_alive = fabric;
  return world;
}

TransportWorld tcp_world(int size) {
  TransportWorld world;
  std::vector<transport::PeerEndpoint> endpoints;
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

}  // namespace

std::vector<std::string> transport_backends() { return {"inproc", "tcp"}; }

TransportWorld make_transport_world(const std::string& backend, int size) {
  if (backend == "inproc") return inproc_world(size);
  if (backend == "tcp") return tcp_world(size);
  throw std::invalid_argument("unknown transport backend '" + backend + "'");
}

}  // namespace rcoll::test
