#include "support/comm_ranks.hpp"

#include <memory>

#include "bootstrap/in_memory.hpp"
#include "comm/comm_impl.hpp"
#include "support/run_ranks.hpp"
#include "transport/inproc/inproc_transport.hpp"

namespace rcoll::test {

void run_comm_ranks(const std::string& backend, int size, const Options& base,
                    const std::function<void(Comm&)>& body, const std::function<void(Options&)>& adjust) {
  auto rendezvous = std::make_shared<bootstrap::InMemoryRendezvous>(size);
  auto fabric = std::make_shared<transport::InprocFabric>(size);
  run_ranks(size, [&](int rank) {
    Options options = base;
    options.rank = rank;
    options.size = size;
    options.bootstrap = "in-memory";
    options.transport = backend == "rdma" ? TransportKind::rdma : TransportKind::tcp;
    if (adjust) adjust(options);
    auto join = [&](const std::string& blob, Deadline deadline) { return rendezvous->join(rank, blob, deadline); };
    comm::TransportFactory make;
    if (backend == "inproc") make = [&](const transport::TransportConfig& c) { return fabric->endpoint(c.rank); };
    Comm comm(std::make_unique<comm::CommImpl>(options, join, nullptr, make));
    body(comm);
  });
}

}  // namespace rcoll::test
