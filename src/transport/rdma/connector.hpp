// How queue pairs get connected. Two ways, behind one interface:
// - BootstrapConnector (default): QP numbers, PSNs and GIDs go through the
//   job's store (store::keys::rdma(from, to), then store::keys::rdma_ready).
// - CmConnector (RCOLL_IB_CM=rdmacm): librdmacm listens and connects; the
//   listener's address and port travel in local_endpoint().
// Both are lazy (a peer is connected when first used) and never block the
// caller of isend/irecv: handshakes advance from progress().
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "transport/rdma/device.hpp"
#include "transport/rdma/peer.hpp"
#include "transport/transport.hpp"

namespace rcoll::transport::rdma {

struct ConnectorSetup {
  Core* core = nullptr;
  DeviceChoice device;
  std::uint64_t token_hash = 0;
  std::chrono::milliseconds connect_timeout{60000};
  int size = 1;
};

class Connector {
 public:
  using Peers = std::vector<std::unique_ptr<Peer>>;
  using TimePoint = std::chrono::steady_clock::time_point;

  virtual ~Connector() = default;

  virtual std::string local_endpoint() const { return {}; }
  virtual void set_peer_endpoints(const std::vector<PeerEndpoint>& /*endpoints*/) {}
  virtual void attach_store(store::Store& /*store*/) {}
  // First use of `peer` (link idle): begin connecting. Never blocks; throws
  // IoError if the local side cannot be set up.
  virtual void start(Peer& peer) = 0;
  // Advances handshakes; true if any moved.
  virtual bool progress(Peers& peers) = 0;
  // When progress() next has timed work (polls, deadlines); nullopt: none.
  virtual std::optional<TimePoint> next_timer() const = 0;
  // An fd that becomes readable when progress() has work; -1: none.
  virtual int fd() const { return -1; }
};

std::unique_ptr<Connector> make_bootstrap_connector(const ConnectorSetup& setup);
std::unique_ptr<Connector> make_cm_connector(const ConnectorSetup& setup);

}  // namespace rcoll::transport::rdma
