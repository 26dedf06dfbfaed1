#include "transport/factory.hpp"

#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "transport/rdma/rdma_transport.hpp"
#include "transport/tcp/tcp_transport.hpp"

namespace rcoll::transport {

std::unique_ptr<Transport> make_transport(TransportKind kind, const TransportConfig& config) {
  switch (kind) {
    case TransportKind::tcp:
      return make_tcp_transport(config);
    case TransportKind::rdma:
      return make_rdma_transport(config);
    case TransportKind::automatic: {
      std::string reason = rdma_unavailable_reason();
      if (reason.empty()) return make_rdma_transport(config);
      // One visible line per job (rank 0), the rest at info: the fallback is
      // expected on hosts without RDMA, but the user should know it happened.
      if (config.rank == 0)
        log::warn("transport auto: using tcp because RDMA is unavailable: {}", reason);
      else
        log::info("transport auto: using tcp because RDMA is unavailable: {}", reason);
      return make_tcp_transport(config);
    }
  }
  throw InvalidArgument("unknown transport kind");
}

}  // namespace rcoll::transport
