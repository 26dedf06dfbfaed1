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

constexpr Collective<AllreduceAlgorithm> allreduce{"allreduce", allreduce_table, &Overrides::allreduce};
constexpr Collective<BcastAlgorithm> bcast{"bcast", bcast_table, &Overrides::bcast};

template <typename A>
const A& find_in(const Collective<A>& collective, decltype(A::id) id) {
  const auto& table = collective.algorithms;
  auto found = std::find_if(table.begin(), table.end(), [id](const A& a) { return a.id == id; });
  if (found == table.end())
    throw InvalidArgument(std::string(collective.name) + ": no algorithm '" + to_string(id) + "' to run");
  return *found;
}

}  // namespace

const Collective<AllreduceAlgorithm>& allreduce_collective() noexcept { return allreduce; }
const Collective<BcastAlgorithm>& bcast_collective() noexcept { return bcast; }

const AllreduceAlgorithm& find_algorithm(AllreduceAlgo id) { return find_in(allreduce, id); }
const BcastAlgorithm& find_algorithm(BcastAlgo id) { return find_in(bcast, id); }

}  // namespace rcoll::tuning
