// The RDMA backend's settings, as plain values: the transport's
// configuration carries them (factory.hpp) in every build, with or
// without the RDMA backend compiled in.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace rcoll::transport::rdma {

enum class PollMode { busy, event, automatic };
enum class ConnectMode { bootstrap, rdmacm };

// Tuning and device choice, one field per RCOLL_IB_* variable (docs/RDMA.md
// lists them; the communicator's environment module reads them:
// comm/environment.hpp).
struct RdmaOptions {
  std::string device;       // RCOLL_IB_DEV: device name; empty = first with an ACTIVE port
  int port = 0;             // RCOLL_IB_PORT: 0 = first ACTIVE port
  int gid_index = -1;       // RCOLL_IB_GID_INDEX: -1 = the RoCE v2 GID of an IPv4 address
  std::string address;      // RCOLL_IB_ADDR: IPv4 address naming device, port and GID
  ConnectMode connect = ConnectMode::bootstrap;  // RCOLL_IB_CM=bootstrap|rdmacm
  PollMode poll = PollMode::automatic;           // RCOLL_IB_POLL=busy|event|auto
  std::size_t eager_limit = 8192;                // RCOLL_IB_EAGER_LIMIT (bytes)
  int ring_slots = 32;                           // RCOLL_IB_RING_SLOTS: receive buffers per peer
  std::size_t chunk_bytes = 512 * 1024;          // RCOLL_IB_CHUNK: rendezvous write size
  int writes_in_flight = 4;                      // RCOLL_IB_WRITES: chunks outstanding per message
  bool mr_cache = true;                          // RCOLL_IB_MR_CACHE=0 disables the cache
  std::size_t mr_cache_entries = 256;            // RCOLL_IB_MR_CACHE_ENTRIES
  std::size_t mr_cache_bytes = std::size_t(1) << 30;  // RCOLL_IB_MR_CACHE_BYTES
  // How often a pending bootstrap handshake looks for the peer's key.
  std::chrono::microseconds handshake_poll{200};
  // How often an idle rank looks (one peer per look, round robin) whether a
  // peer it never used wants to connect; 0 disables (RCOLL_IB_DISCOVERY_MS).
  std::chrono::milliseconds discovery_interval{20};
  // Keep-alive: after this long without a completion from a peer that has
  // operations pending, probe it with a 0-byte RDMA WRITE; a dead peer's
  // QP does not answer and the probe fails the peer (retry exceeded, about
  // a second later). 0 disables (RCOLL_IB_KEEPALIVE_MS).
  std::chrono::milliseconds keepalive_interval{1000};
};

}  // namespace rcoll::transport::rdma
