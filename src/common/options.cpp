// The names of the public option values (include/rcoll/options.hpp).
#include "rcoll/options.hpp"

#include <string_view>
#include <utility>

#include "rcoll/errors.hpp"

namespace rcoll {
namespace {

template <typename E>
using Names = std::initializer_list<std::pair<E, std::string_view>>;

template <typename E>
std::string name_in(Names<E> names, E value) {
  for (const auto& [v, name] : names)
    if (v == value) return std::string(name);
  return "invalid";
}

// "unknown allgather algorithm 'x' (expected auto, ring, rd or bruck)"
template <typename E>
E parse_in(Names<E> names, const std::string& name, std::string_view what) {
  std::string expected;
  std::size_t i = 0;
  for (const auto& [v, n] : names) {
    if (n == name) return v;
    expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(n);
    ++i;
  }
  throw InvalidArgument("unknown " + std::string(what) + " '" + name + "' (expected " + expected + ")");
}

const Names<TransportKind> transports{
    {TransportKind::automatic, "auto"}, {TransportKind::tcp, "tcp"}, {TransportKind::rdma, "rdma"}};
const Names<AllreduceAlgo> allreduce_algos{{AllreduceAlgo::automatic, "auto"},
                                           {AllreduceAlgo::ring, "ring"},
                                           {AllreduceAlgo::tree, "tree"},
                                           {AllreduceAlgo::recursive_doubling, "rd"}};
const Names<BcastAlgo> bcast_algos{{BcastAlgo::automatic, "auto"},
                                   {BcastAlgo::binomial, "binomial"},
                                   {BcastAlgo::scatter_allgather, "scatter_allgather"},
                                   {BcastAlgo::chain, "chain"}};
const Names<ReduceAlgo> reduce_algos{{ReduceAlgo::automatic, "auto"},
                                     {ReduceAlgo::binomial, "binomial"},
                                     {ReduceAlgo::reduce_scatter_gather, "reduce_scatter_gather"}};
const Names<AllgatherAlgo> allgather_algos{{AllgatherAlgo::automatic, "auto"},
                                           {AllgatherAlgo::ring, "ring"},
                                           {AllgatherAlgo::recursive_doubling, "rd"},
                                           {AllgatherAlgo::bruck, "bruck"}};
const Names<ReduceScatterAlgo> reduce_scatter_algos{{ReduceScatterAlgo::automatic, "auto"},
                                                    {ReduceScatterAlgo::ring, "ring"},
                                                    {ReduceScatterAlgo::recursive_halving, "recursive_halving"}};
const Names<AlltoallAlgo> alltoall_algos{
    {AlltoallAlgo::automatic, "auto"}, {AlltoallAlgo::pairwise, "pairwise"}, {AlltoallAlgo::bruck, "bruck"}};
const Names<GatherAlgo> gather_algos{
    {GatherAlgo::automatic, "auto"}, {GatherAlgo::binomial, "binomial"}, {GatherAlgo::linear, "linear"}};
const Names<ScatterAlgo> scatter_algos{
    {ScatterAlgo::automatic, "auto"}, {ScatterAlgo::binomial, "binomial"}, {ScatterAlgo::linear, "linear"}};
const Names<Progress> progress_modes{{Progress::caller, "caller"}, {Progress::thread, "thread"}};

}  // namespace

std::string to_string(TransportKind kind) { return name_in(transports, kind); }
std::string to_string(AllreduceAlgo algo) { return name_in(allreduce_algos, algo); }
std::string to_string(BcastAlgo algo) { return name_in(bcast_algos, algo); }
std::string to_string(ReduceAlgo algo) { return name_in(reduce_algos, algo); }
std::string to_string(AllgatherAlgo algo) { return name_in(allgather_algos, algo); }
std::string to_string(ReduceScatterAlgo algo) { return name_in(reduce_scatter_algos, algo); }
std::string to_string(AlltoallAlgo algo) { return name_in(alltoall_algos, algo); }
std::string to_string(GatherAlgo algo) { return name_in(gather_algos, algo); }
std::string to_string(ScatterAlgo algo) { return name_in(scatter_algos, algo); }
std::string to_string(Progress progress) { return name_in(progress_modes, progress); }

TransportKind parse_transport(const std::string& name) { return parse_in(transports, name, "transport"); }
AllreduceAlgo parse_allreduce_algo(const std::string& name) {
  return parse_in(allreduce_algos, name, "allreduce algorithm");
}
BcastAlgo parse_bcast_algo(const std::string& name) { return parse_in(bcast_algos, name, "bcast algorithm"); }
ReduceAlgo parse_reduce_algo(const std::string& name) { return parse_in(reduce_algos, name, "reduce algorithm"); }
AllgatherAlgo parse_allgather_algo(const std::string& name) {
  return parse_in(allgather_algos, name, "allgather algorithm");
}
ReduceScatterAlgo parse_reduce_scatter_algo(const std::string& name) {
  return parse_in(reduce_scatter_algos, name, "reduce_scatter algorithm");
}
AlltoallAlgo parse_alltoall_algo(const std::string& name) {
  return parse_in(alltoall_algos, name, "alltoall algorithm");
}
GatherAlgo parse_gather_algo(const std::string& name) { return parse_in(gather_algos, name, "gather algorithm"); }
ScatterAlgo parse_scatter_algo(const std::string& name) { return parse_in(scatter_algos, name, "scatter algorithm"); }
Progress parse_progress(const std::string& name) { return parse_in(progress_modes, name, "progress mode"); }

}  // namespace rcoll
