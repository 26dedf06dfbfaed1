// What all peers of one RDMA transport share; owned by the transport.
#pragma once

#include <cstdint>
#include <vector>

#include "transport/rdma/channel.hpp"
#include "transport/rdma/mr_cache.hpp"
#include "transport/rdma/rdma_transport.hpp"

namespace rcoll::transport::rdma {

class Peer;

struct Core {
  int rank = 0;
  RdmaOptions options;
  DeviceHandles device;
  ChannelConfig channel_config;
  MrCache* cache = nullptr;
  RdmaStats stats;
  std::uint32_t last_id = 0;
  std::vector<Peer*> active;  // peers with a channel, polled by progress()

  // Request ids travel in 32-bit immediates; 0 means "none".
  std::uint32_t new_id() noexcept {
    if (++last_id == 0) ++last_id;
    return last_id;
  }
};

}  // namespace rcoll::transport::rdma
