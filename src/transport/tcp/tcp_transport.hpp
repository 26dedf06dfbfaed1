// TCP backend of the transport interface (see transport/transport.hpp).
#pragma once

#include <memory>

#include "transport/factory.hpp"

namespace rcoll::transport {

// Listens at once (so local_endpoint() is known); connects on first use.
std::unique_ptr<Transport> make_tcp_transport(const TransportConfig& config);

}  // namespace rcoll::transport
