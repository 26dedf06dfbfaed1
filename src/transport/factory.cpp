#include "transport/factory.hpp"

#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "transport/tcp/tcp_transport.hpp"

namespace rcoll::transport {

std::unique_ptr<Transport> make_transport(TransportKind kind, const TransportConfig& config) {
  switch (kind) {
    case TransportKind::tcp:
      return make_tcp_transport(config);
    case TransportKind::automatic:
      log::info("transport auto: using tcp (this build has no RDMA backend)");
      return make_tcp_transport(config);
    case TransportKind::rdma:
      throw InvalidArgument("rank " + std::to_string(config.rank) +
                            ": transport 'rdma' requested, but this build has no RDMA backend");
  }
  throw InvalidArgument("unknown transport kind");
}

}  // namespace rcoll::transport
