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
                       allreduce_recursive_doubling_cost, 1, LinkMessage::whole},
    AllreduceAlgorithm{AllreduceAlgo::tree, c::allreduce_tree, allreduce_tree_cost, 2, LinkMessage::whole},
    AllreduceAlgorithm{AllreduceAlgo::ring, c::allreduce_ring, allreduce_ring_cost, 8, LinkMessage::share},
};

constexpr std::array bcast_table{
    BcastAlgorithm{BcastAlgo::binomial, c::bcast_binomial, bcast_binomial_cost, 8, LinkMessage::whole},
    BcastAlgorithm{BcastAlgo::scatter_allgather, c::bcast_scatter_allgather, bcast_scatter_allgather_cost, 8,
                   LinkMessage::share},
    BcastAlgorithm{BcastAlgo::chain, c::bcast_chain, bcast_chain_cost, 8, LinkMessage::whole},
};

template <typename Table, typename Id>
const auto& find_in(const Table& table, Id id, const char* collective) {
  auto found = std::find_if(table.begin(), table.end(), [id](const auto& a) { return a.id == id; });
  if (found == table.end())
    throw InvalidArgument(std::string(collective) + ": no algorithm '" + to_string(id) + "' to run");
  return *found;
}

}  // namespace

std::span<const AllreduceAlgorithm> allreduce_algorithms() noexcept { return allreduce_table; }
std::span<const BcastAlgorithm> bcast_algorithms() noexcept { return bcast_table; }

const AllreduceAlgorithm& find_algorithm(AllreduceAlgo id) { return find_in(allreduce_table, id, "allreduce"); }
const BcastAlgorithm& find_algorithm(BcastAlgo id) { return find_in(bcast_table, id, "bcast"); }

}  // namespace rcoll::tuning
