// Creates the transport a communicator runs on.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "rcoll/options.hpp"
#include "transport/transport.hpp"

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
};

// `automatic` picks RDMA when a usable device exists, else TCP, and logs why.
// `rdma` in a build without RDMA (RCOLL_WITH_RDMA=OFF): InvalidArgument.
std::unique_ptr<Transport> make_transport(TransportKind kind, const TransportConfig& config);

// Why `automatic` would not pick RDMA here, in one line; empty if it would.
// With the RCOLL_IB_* settings: no device, no ACTIVE port, ...
// (rdma/rdma_transport.hpp); in a build without RDMA, that the build has none.
std::string rdma_unavailable_reason();

}  // namespace rcoll::transport
