#include "tuning/catalog.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "rcoll/errors.hpp"

namespace rcoll::tuning {
namespace {

namespace c = collectives;

// Depths: a ring or a forwarding rank has one upstream link and keeps it
// busy with several pieces; a tree's inner rank has several children and
// posts two pieces from each, which bounds its scratch.
constexpr std::array allreduce_table{
    AllreduceAlgorithm{AllreduceAlgo::recursive_doubling, c::allreduce_recursive_doubling,
                       allreduce_recursive_doubling_cost, 0, LinkMessage::whole},
    AllreduceAlgorithm{AllreduceAlgo::tree, c::allreduce_tree, allreduce_tree_cost, 2, LinkMessage::whole},
    AllreduceAlgorithm{AllreduceAlgo::ring, c::allreduce_ring, allreduce_ring_cost, 8, LinkMessage::share},
};

constexpr std::array bcast_table{
    BcastAlgorithm{BcastAlgo::binomial, c::bcast_binomial, bcast_binomial_cost, 8, LinkMessage::forwarded},
    BcastAlgorithm{BcastAlgo::scatter_allgather, c::bcast_scatter_allgather, bcast_scatter_allgather_cost, 8,
                   LinkMessage::share},
    BcastAlgorithm{BcastAlgo::chain, c::bcast_chain, bcast_chain_cost, 8, LinkMessage::forwarded},
};

constexpr std::array reduce_table{
    ReduceAlgorithm{ReduceAlgo::binomial, c::reduce_binomial, reduce_binomial_cost, 2, LinkMessage::whole},
    ReduceAlgorithm{ReduceAlgo::reduce_scatter_gather, c::reduce_scatter_gather, reduce_scatter_gather_cost, 8,
                    LinkMessage::share},
};

constexpr std::array allgather_table{
    AllgatherAlgorithm{AllgatherAlgo::recursive_doubling, c::allgather_recursive_doubling,
                       allgather_recursive_doubling_cost, 0, LinkMessage::whole},
    AllgatherAlgorithm{AllgatherAlgo::bruck, c::allgather_bruck, allgather_bruck_cost, 0, LinkMessage::whole},
    AllgatherAlgorithm{AllgatherAlgo::ring, c::allgather_ring, allgather_ring_cost, 8, LinkMessage::share},
};
constexpr std::array allgatherv_table{
    AllgatherAlgorithm{AllgatherAlgo::ring, c::allgather_ring, allgather_ring_cost, 8, LinkMessage::share},
};

constexpr std::array reduce_scatter_table{
    ReduceScatterAlgorithm{ReduceScatterAlgo::recursive_halving, c::reduce_scatter_recursive_halving,
                           reduce_scatter_recursive_halving_cost, 0, LinkMessage::whole},
    ReduceScatterAlgorithm{ReduceScatterAlgo::ring, c::reduce_scatter_ring, reduce_scatter_ring_cost, 8,
                           LinkMessage::share},
};
constexpr std::array reduce_scatter_v_table{
    ReduceScatterAlgorithm{ReduceScatterAlgo::ring, c::reduce_scatter_ring, reduce_scatter_ring_cost, 8,
                           LinkMessage::share},
};

constexpr std::array alltoall_table{
    AlltoallAlgorithm{AlltoallAlgo::bruck, c::alltoall_bruck, alltoall_bruck_cost, 0, LinkMessage::whole},
    AlltoallAlgorithm{AlltoallAlgo::pairwise, c::alltoall_pairwise, alltoall_pairwise_cost, 0, LinkMessage::share},
};
constexpr std::array alltoallv_table{
    AlltoallAlgorithm{AlltoallAlgo::pairwise, c::alltoall_pairwise, alltoall_pairwise_cost, 0, LinkMessage::share},
};

constexpr std::array gather_table{
    GatherAlgorithm{GatherAlgo::binomial, c::gather_binomial, gather_binomial_cost, 0, LinkMessage::whole},
    GatherAlgorithm{GatherAlgo::linear, c::gather_linear, gather_linear_cost, 0, LinkMessage::share},
};
constexpr std::array gatherv_table{
    GatherAlgorithm{GatherAlgo::linear, c::gather_linear, gather_linear_cost, 0, LinkMessage::share},
};

constexpr std::array scatter_table{
    ScatterAlgorithm{ScatterAlgo::binomial, c::scatter_binomial, scatter_binomial_cost, 0, LinkMessage::whole},
    ScatterAlgorithm{ScatterAlgo::linear, c::scatter_linear, scatter_linear_cost, 0, LinkMessage::share},
};
constexpr std::array scatterv_table{
    ScatterAlgorithm{ScatterAlgo::linear, c::scatter_linear, scatter_linear_cost, 0, LinkMessage::share},
};

constexpr Collective<AllreduceAlgorithm> allreduce{"allreduce", allreduce_table, &Overrides::allreduce};
constexpr Collective<BcastAlgorithm> bcast{"bcast", bcast_table, &Overrides::bcast};
constexpr Collective<ReduceAlgorithm> reduce{"reduce", reduce_table, &Overrides::reduce};
constexpr Collective<AllgatherAlgorithm> allgather{"allgather", allgather_table, &Overrides::allgather};
constexpr Collective<AllgatherAlgorithm> allgatherv{"allgatherv", allgatherv_table, &Overrides::allgather, true};
constexpr Collective<ReduceScatterAlgorithm> reduce_scatter{"reduce_scatter", reduce_scatter_table,
                                                            &Overrides::reduce_scatter};
constexpr Collective<ReduceScatterAlgorithm> reduce_scatter_v{"reduce_scatter_v", reduce_scatter_v_table,
                                                              &Overrides::reduce_scatter, true};
constexpr Collective<AlltoallAlgorithm> alltoall{"alltoall", alltoall_table, &Overrides::alltoall};
constexpr Collective<AlltoallAlgorithm> alltoallv{"alltoallv", alltoallv_table, &Overrides::alltoall, true};
constexpr Collective<GatherAlgorithm> gather{"gather", gather_table, &Overrides::gather};
constexpr Collective<GatherAlgorithm> gatherv{"gatherv", gatherv_table, &Overrides::gather, true};
constexpr Collective<ScatterAlgorithm> scatter{"scatter", scatter_table, &Overrides::scatter};
constexpr Collective<ScatterAlgorithm> scatterv{"scatterv", scatterv_table, &Overrides::scatter, true};

}  // namespace

template <typename A>
const A& find_algorithm(const Collective<A>& collective, decltype(A::id) id) {
  const auto& table = collective.algorithms;
  auto found = std::find_if(table.begin(), table.end(), [id](const A& a) { return a.id == id; });
  if (found == table.end())
    throw InvalidArgument(std::string(collective.name) + ": no algorithm '" + to_string(id) + "' to run");
  return *found;
}

template const AllreduceAlgorithm& find_algorithm(const Collective<AllreduceAlgorithm>&, AllreduceAlgo);
template const BcastAlgorithm& find_algorithm(const Collective<BcastAlgorithm>&, BcastAlgo);
template const ReduceAlgorithm& find_algorithm(const Collective<ReduceAlgorithm>&, ReduceAlgo);
template const AllgatherAlgorithm& find_algorithm(const Collective<AllgatherAlgorithm>&, AllgatherAlgo);
template const ReduceScatterAlgorithm& find_algorithm(const Collective<ReduceScatterAlgorithm>&, ReduceScatterAlgo);
template const AlltoallAlgorithm& find_algorithm(const Collective<AlltoallAlgorithm>&, AlltoallAlgo);
template const GatherAlgorithm& find_algorithm(const Collective<GatherAlgorithm>&, GatherAlgo);
template const ScatterAlgorithm& find_algorithm(const Collective<ScatterAlgorithm>&, ScatterAlgo);

const Collective<AllreduceAlgorithm>& allreduce_collective() noexcept { return allreduce; }
const Collective<BcastAlgorithm>& bcast_collective() noexcept { return bcast; }
const Collective<ReduceAlgorithm>& reduce_collective() noexcept { return reduce; }
const Collective<AllgatherAlgorithm>& allgather_collective() noexcept { return allgather; }
const Collective<AllgatherAlgorithm>& allgatherv_collective() noexcept { return allgatherv; }
const Collective<ReduceScatterAlgorithm>& reduce_scatter_collective() noexcept { return reduce_scatter; }
const Collective<ReduceScatterAlgorithm>& reduce_scatter_v_collective() noexcept { return reduce_scatter_v; }
const Collective<AlltoallAlgorithm>& alltoall_collective() noexcept { return alltoall; }
const Collective<AlltoallAlgorithm>& alltoallv_collective() noexcept { return alltoallv; }
const Collective<GatherAlgorithm>& gather_collective() noexcept { return gather; }
const Collective<GatherAlgorithm>& gatherv_collective() noexcept { return gatherv; }
const Collective<ScatterAlgorithm>& scatter_collective() noexcept { return scatter; }
const Collective<ScatterAlgorithm>& scatterv_collective() noexcept { return scatterv; }

const AllreduceAlgorithm& find_algorithm(AllreduceAlgo id) { return find_algorithm(allreduce, id); }
const BcastAlgorithm& find_algorithm(BcastAlgo id) { return find_algorithm(bcast, id); }

}  // namespace rcoll::tuning
