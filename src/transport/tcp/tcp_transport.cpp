// Placeholder until the TCP backend lands: fails loudly, never silently.
#include "transport/tcp/tcp_transport.hpp"

#include "rcoll/errors.hpp"

namespace rcoll::transport {

std::unique_ptr<Transport> make_tcp_transport(const TransportConfig& config) {
  throw IoError(config.rank, -1, "tcp transport", "not implemented yet");
}

}  // namespace rcoll::transport
