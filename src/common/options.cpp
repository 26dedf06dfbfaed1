// The names of the public option values (include/rcoll/options.hpp).
#include "rcoll/options.hpp"

#include "rcoll/errors.hpp"

namespace rcoll {

std::string to_string(TransportKind kind) {
  switch (kind) {
    case TransportKind::automatic: return "auto";
    case TransportKind::tcp: return "tcp";
    case TransportKind::rdma: return "rdma";
  }
  return "invalid-transport";
}

std::string to_string(AllreduceAlgo algo) {
  switch (algo) {
    case AllreduceAlgo::automatic: return "auto";
    case AllreduceAlgo::ring: return "ring";
    case AllreduceAlgo::tree: return "tree";
    case AllreduceAlgo::recursive_doubling: return "rd";
  }
  return "invalid-algo";
}

std::string to_string(BcastAlgo algo) {
  switch (algo) {
    case BcastAlgo::automatic: return "auto";
    case BcastAlgo::binomial: return "binomial";
    case BcastAlgo::scatter_allgather: return "scatter_allgather";
    case BcastAlgo::chain: return "chain";
  }
  return "invalid-algo";
}

TransportKind parse_transport(const std::string& name) {
  for (auto kind : {TransportKind::automatic, TransportKind::tcp, TransportKind::rdma})
    if (name == to_string(kind)) return kind;
  throw InvalidArgument("unknown transport '" + name + "' (expected auto, tcp or rdma)");
}

AllreduceAlgo parse_allreduce_algo(const std::string& name) {
  for (auto algo : {AllreduceAlgo::automatic, AllreduceAlgo::ring, AllreduceAlgo::tree,
                    AllreduceAlgo::recursive_doubling})
    if (name == to_string(algo)) return algo;
  throw InvalidArgument("unknown allreduce algorithm '" + name + "' (expected auto, ring, tree or rd)");
}

BcastAlgo parse_bcast_algo(const std::string& name) {
  for (auto algo : {BcastAlgo::automatic, BcastAlgo::binomial, BcastAlgo::scatter_allgather, BcastAlgo::chain})
    if (name == to_string(algo)) return algo;
  throw InvalidArgument("unknown bcast algorithm '" + name +
                        "' (expected auto, binomial, scatter_allgather or chain)");
}

}  // namespace rcoll
