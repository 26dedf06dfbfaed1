#include "rcoll/errors.hpp"
#include "rcoll/options.hpp"
#include "rcoll/types.hpp"

namespace rcoll {

std::size_t dtype_size(DataType type) noexcept {
  switch (type) {
    case DataType::int8: case DataType::uint8: return 1;
    case DataType::float16: case DataType::bfloat16: return 2;
    case DataType::int32: case DataType::uint32: case DataType::float32: return 4;
    case DataType::int64: case DataType::uint64: case DataType::float64: return 8;
  }
  return 0;
}

std::string_view to_string(DataType type) noexcept {
  switch (type) {
    case DataType::int8: return "int8";
    case DataType::uint8: return "uint8";
    case DataType::int32: return "int32";
    case DataType::uint32: return "uint32";
    case DataType::int64: return "int64";
    case DataType::uint64: return "uint64";
    case DataType::float16: return "float16";
    case DataType::bfloat16: return "bfloat16";
    case DataType::float32: return "float32";
    case DataType::float64: return "float64";
  }
  return "invalid-dtype";
}

std::string_view to_string(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
  }
  return "invalid-op";
}

IoError::IoError(int rank, int peer, std::string step, std::string cause)
    : Error("rank " + std::to_string(rank) +
            (peer >= 0 ? ", peer " + std::to_string(peer) : std::string()) + ": " + step + ": " + cause),
      rank_(rank), peer_(peer), step_(std::move(step)), cause_(std::move(cause)) {}

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
