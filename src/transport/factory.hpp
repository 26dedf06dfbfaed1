// Creates the transport a communicator runs on.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "rcoll/options.hpp"
#include "transport/rdma/rdma_options.hpp"
#include "transport/transport.hpp"

namespace rcoll::transport {

struct TransportConfig {
  int rank = 0;
  int size = 1;
  // Proven (never sent) on every connection between ranks, so a stray
  // client can neither pose as a rank nor learn it.
  std::string job_token;
  // Interface name or IPv4 address to listen on and to publish; empty: the
  // address of this host's route to the job (`job_route`).
  std::string socket_ifname;
  // "host:port" of the job's bootstrap service, through which this rank
  // reaches the job: without socket_ifname, the TCP transport listens only
  // on the local address of the route to it (loopback when the service is
  // on loopback). Empty, or not host:port (the in-memory bootstrap of ranks
  // that are threads of one process): loopback. tcp/endpoint.hpp has the rule.
  std::string job_route;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(60)};
  // The backends' own settings (the communicator reads them from RCOLL_IB_*
  // and RCOLL_TCP_SNDBUF: comm/environment.hpp); a backend reads no variable.
  rdma::RdmaOptions rdma;
  // The kernel send buffer for large TCP payloads (tcp/send_buffer.hpp);
  // nullopt: the default.
  std::optional<std::size_t> tcp_send_buffer;
};

// `automatic` picks RDMA when a usable device exists, else TCP, and logs why.
// `rdma` in a build without RDMA (RCOLL_WITH_RDMA=OFF): InvalidArgument.
std::unique_ptr<Transport> make_transport(TransportKind kind, const TransportConfig& config);

// Why `automatic` would not pick RDMA here with `options`, in one line;
// empty if it would: no device, no ACTIVE port, ... (rdma/rdma_transport.hpp);
// in a build without RDMA, that the build has none.
std::string rdma_unavailable_reason(const rdma::RdmaOptions& options = {});

}  // namespace rcoll::transport
