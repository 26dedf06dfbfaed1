// Which device, port and GID this rank uses: named by RCOLL_IB_DEV /
// RCOLL_IB_PORT / RCOLL_IB_GID_INDEX, or by an IP address (RCOLL_IB_ADDR,
// resolved with librdmacm), or chosen automatically (the first device with
// an ACTIVE port; on RoCE its RoCE v2 GID of an IPv4-mapped address).
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>

#include "transport/rdma/rdma_transport.hpp"

namespace rcoll::transport::rdma {

struct DeviceChoice {
  std::string name;                   // e.g. "rxe0", "mlx5_0"
  std::uint8_t port = 1;
  int gid_index = -1;                 // -1: none (InfiniBand, routed by LID)
  ibv_gid gid{};
  std::uint16_t lid = 0;
  ibv_mtu active_mtu = IBV_MTU_1024;
  bool roce = false;                  // Ethernet link layer: every packet carries a GRH
  std::string ipv4;                   // address of the chosen GID, if IPv4-mapped

  std::string describe() const;       // "rxe0 port 1 gid[1] ::ffff:192.0.2.1 mtu 1024"
};

// Throws IoError(rank, -1, "rdma device selection", <one-line reason>) when
// no device fits: no device at all, the named one is missing, no ACTIVE
// port, no usable GID, or the memlock limit is too low to pin buffers.
DeviceChoice select_device(const RdmaOptions& options, int rank);

// "" if the memlock limit lets us pin what we need, else the reason + fix.
std::string memlock_problem();

// "::ffff:192.0.2.1" for an IPv4-mapped GID, else the IPv6 text form.
std::string gid_text(const ibv_gid& gid);

}  // namespace rcoll::transport::rdma
