#include "transport/factory.hpp"

#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "transport/tcp/tcp_transport.hpp"
#if RCOLL_WITH_RDMA
#include "transport/rdma/rdma_transport.hpp"
#endif

namespace rcoll::transport {
namespace {

#if RCOLL_WITH_RDMA
std::unique_ptr<Transport> rdma_transport(const TransportConfig& config) { return make_rdma_transport(config); }
#else
// The TCP-only build (RCOLL_WITH_RDMA=OFF): src/transport/rdma/ is not
// compiled, and librcoll does not link libibverbs or librdmacm.
constexpr char no_rdma_in_build[] = "this build of rcoll has no RDMA support (RCOLL_WITH_RDMA=OFF)";

std::unique_ptr<Transport> rdma_transport(const TransportConfig& config) {
  throw InvalidArgument("rank " + std::to_string(config.rank) + ": transport rdma: " + no_rdma_in_build +
                        "; use tcp or auto");
}
#endif

}  // namespace

std::string rdma_unavailable_reason([[maybe_unused]] const rdma::RdmaOptions& options) {
#if RCOLL_WITH_RDMA
  return rdma::unavailable_reason(options);
#else
  return no_rdma_in_build;
#endif
}

std::unique_ptr<Transport> make_transport(TransportKind kind, const TransportConfig& config) {
  switch (kind) {
    case TransportKind::tcp:
      return make_tcp_transport(config);
    case TransportKind::rdma:
      return rdma_transport(config);
    case TransportKind::automatic: {
      std::string reason = rdma_unavailable_reason(config.rdma);
      if (reason.empty()) return rdma_transport(config);
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
