// RAII for librdmacm objects, in the style of verbs.hpp.
#pragma once

#include <rdma/rdma_cma.h>

#include <memory>
#include <string>

#include "transport/rdma/verbs.hpp"

namespace rcoll::transport::rdma {

struct EventChannelDeleter {
  void operator()(rdma_event_channel* channel) const noexcept {
    if (channel != nullptr) rdma_destroy_event_channel(channel);
  }
};
// Destroys the id and the QP created on it (rdma_destroy_qp first).
struct CmIdDeleter {
  void operator()(rdma_cm_id* id) const noexcept {
    if (id == nullptr) return;
    if (id->qp != nullptr) rdma_destroy_qp(id);
    rdma_destroy_id(id);
  }
};
struct CmDeviceListDeleter {
  void operator()(ibv_context** list) const noexcept {
    if (list != nullptr) rdma_free_devices(list);
  }
};

using EventChannelPtr = std::unique_ptr<rdma_event_channel, EventChannelDeleter>;
using CmIdPtr = std::unique_ptr<rdma_cm_id, CmIdDeleter>;
using CmDeviceListPtr = std::unique_ptr<ibv_context*, CmDeviceListDeleter>;

// A non-blocking event channel (its fd is polled from the progress loop).
EventChannelPtr create_event_channel(Where where);
CmIdPtr create_cm_id(rdma_event_channel* channel, void* context, Where where);

// "a.b.c.d" -> sockaddr_in with `port` (host order); InvalidArgument if malformed.
sockaddr_in ipv4_sockaddr(const std::string& address, std::uint16_t port);

}  // namespace rcoll::transport::rdma
