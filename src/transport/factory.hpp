// Creates the transport a communicator runs on.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "rcoll/options.hpp"
#include "transport/transport.hpp"

namespace rcoll::bootstrap {
class Bootstrap;
}

namespace rcoll::transport {

struct TransportConfig {
  int rank = 0;
  int size = 1;
  // Presented on every connection between ranks, so a stray client cannot
  // pose as a rank.
  std::string job_token;
  // Interface name or IPv4 address to listen on and to publish; empty: any.
  std::string socket_ifname;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(60)};
  // For backends that exchange per-connection data after the join (RDMA);
  // may be null for others. Outlives the transport.
  bootstrap::Bootstrap* bootstrap = nullptr;
};

// `automatic` picks RDMA when a usable device exists, else TCP, and logs why.
std::unique_ptr<Transport> make_transport(TransportKind kind, const TransportConfig& config);

}  // namespace rcoll::transport
