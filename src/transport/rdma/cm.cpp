#include "transport/rdma/cm.hpp"

#include <arpa/inet.h>
#include <fcntl.h>

#include <cerrno>

#include "rcoll/errors.hpp"

namespace rcoll::transport::rdma {

EventChannelPtr create_event_channel(Where where) {
  errno = 0;
  EventChannelPtr channel(rdma_create_event_channel());
  if (!channel) throw_verb_error(where, "rdma_create_event_channel", errno != 0 ? errno : ENODEV);
  int flags = fcntl(channel->fd, F_GETFL);
  if (flags < 0 || fcntl(channel->fd, F_SETFL, flags | O_NONBLOCK) < 0)
    throw_verb_error(where, "fcntl(O_NONBLOCK) on the rdma_cm event channel", errno);
  return channel;
}

CmIdPtr create_cm_id(rdma_event_channel* channel, void* context, Where where) {
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(channel, &id, context, RDMA_PS_TCP) != 0) throw_verb_error(where, "rdma_create_id", errno);
  return CmIdPtr(id);
}

sockaddr_in ipv4_sockaddr(const std::string& address, std::uint16_t port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  if (inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1)
    throw InvalidArgument("'" + address + "' is not an IPv4 address");
  return sa;
}

}  // namespace rcoll::transport::rdma
