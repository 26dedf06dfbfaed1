// The RDMA transport object; see rdma_transport.hpp for the entry points.
#pragma once

#include <memory>
#include <vector>

#include "common/event_fd.hpp"
#include "transport/rdma/cm.hpp"
#include "transport/rdma/connector.hpp"
#include "transport/rdma/device.hpp"
#include "transport/rdma/mr_cache.hpp"
#include "transport/rdma/peer.hpp"
#include "transport/rdma/rdma_transport.hpp"

namespace rcoll::transport::rdma {

class RdmaTransport final : public Transport {
 public:
  RdmaTransport(const TransportConfig& config, const RdmaOptions& options, DeviceChoice device);
  ~RdmaTransport() override;

  std::string_view name() const override { return "rdma"; }
  const Capabilities& capabilities() const override { return caps_; }
  int rank() const override { return config_.rank; }
  int size() const override { return config_.size; }
  std::string local_endpoint() const override { return connector_->local_endpoint(); }
  void set_peer_endpoints(std::vector<PeerEndpoint> endpoints) override;
  void attach_store(store::Store& store) override { connector_->attach_store(store); }

  RequestPtr isend(int peer, Tag tag, const void* buf, std::size_t bytes) override;
  RequestPtr irecv(int peer, Tag tag, void* buf, std::size_t capacity) override;
  void cancel(Request& request) override;
  bool progress() override;
  void wait_for_activity(std::chrono::microseconds max) override;
  void wake() override { wakeup_.signal(); }

  RdmaStats stats() const;
  std::shared_ptr<BufferRegistration::Owner> registrations() const { return registrations_; }

 private:
  // The peer's record, its connection started on first use.
  Peer& use(int peer);
  void start_connecting(Peer& peer);
  bool poll_peers();
  bool spin(std::chrono::steady_clock::time_point until);
  void block_for_events(std::chrono::steady_clock::time_point until);
  void drain_cq_events();
  void drain(Peer& peer, std::uint32_t recv_id);

  TransportConfig config_;
  Capabilities caps_;
  DeviceChoice device_;
  // Device objects, in creation order (destroyed in reverse).
  CmDeviceListPtr cm_devices_;  // rdma_cm path: librdmacm's own contexts
  ContextPtr own_context_;      // bootstrap path
  ibv_context* context_ = nullptr;
  PdPtr pd_;
  CompChannelPtr events_;
  std::shared_ptr<BufferRegistration::Owner> registrations_;  // the MR cache
  Core core_;
  std::unique_ptr<Connector> connector_;
  std::vector<std::unique_ptr<Peer>> peers_;  // index = rank
  EventFd wakeup_;  // wake(): ends a spin (its flag) or a sleep (its fd)
};

}  // namespace rcoll::transport::rdma
