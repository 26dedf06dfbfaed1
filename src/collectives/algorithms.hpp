// The schedules, one file each. Each handles world size 1 and count 0
// itself (an out-of-place copy, then return). tuning/catalog.hpp lists them
// with their costs; the communicator runs the one the plan chose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectives/collectives.hpp"
#include "collectives/schedule.hpp"

namespace rcoll::collectives {

void allreduce_ring(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type,
                    ReduceOp op);
void allreduce_tree(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type,
                    ReduceOp op);
void allreduce_recursive_doubling(const Context& ctx, const void* send, void* recv, std::size_t count,
                                  DataType type, ReduceOp op);

void bcast_binomial(const Context& ctx, void* buf, std::size_t bytes, int root);
void bcast_scatter_allgather(const Context& ctx, void* buf, std::size_t bytes, int root);
void bcast_chain(const Context& ctx, void* buf, std::size_t bytes, int root);

void barrier_dissemination(const Context& ctx);

void reduce_binomial(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                     int root);
void reduce_scatter_gather(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type,
                           ReduceOp op, int root);

void allgather_ring(const Context& ctx, const void* send, void* recv, const Blocks& blocks);
void allgather_recursive_doubling(const Context& ctx, const void* send, void* recv, const Blocks& blocks);
void allgather_bruck(const Context& ctx, const void* send, void* recv, const Blocks& blocks);

void reduce_scatter_ring(const Context& ctx, const void* send, void* recv, const Blocks& blocks, DataType type,
                         ReduceOp op);
void reduce_scatter_recursive_halving(const Context& ctx, const void* send, void* recv, const Blocks& blocks,
                                      DataType type, ReduceOp op);

void alltoall_pairwise(const Context& ctx, const void* send, const Blocks& send_blocks, void* recv,
                       const Blocks& recv_blocks);
void alltoall_bruck(const Context& ctx, const void* send, const Blocks& send_blocks, void* recv,
                    const Blocks& recv_blocks);

void gather_binomial(const Context& ctx, const void* send, void* recv, const Blocks& blocks, int root);
void gather_linear(const Context& ctx, const void* send, void* recv, const Blocks& blocks, int root);
void scatter_binomial(const Context& ctx, const void* send, void* recv, const Blocks& blocks, int root);
void scatter_linear(const Context& ctx, const void* send, void* recv, const Blocks& blocks, int root);

// Binomial-tree bcast of `bytes` from `root` in pieces of at most
// `segment_bytes`: each rank forwards a piece to its children as soon as
// it has it. Uses ctx.tag(step). bcast_binomial is this with step 0;
// allreduce_tree uses it for its second phase.
void binomial_bcast_segments(const Context& ctx, std::byte* buf, std::size_t bytes, std::size_t segment_bytes,
                             int root, std::uint32_t step, std::string_view name);

// Pipelined forwarding along any tree: receives each piece from
// links.parent (none at the root) and forwards it to links.children in that
// order as soon as it has arrived; every edge cuts the message alike
// (segment_range). The binomial bcast and the chain (a tree with one child
// per rank) are both this.
void forward_segments(const Context& ctx, const TreeLinks& links, std::byte* buf, std::size_t bytes,
                      std::size_t segment_bytes, std::uint32_t step, std::string_view name);

// The shared prologue of the allreduce schedules: copies send to recv when
// out of place and the world has one rank. True when nothing is left to do.
bool allreduce_trivial(const Context& ctx, const void* send, void* recv, std::size_t count, DataType type);

}  // namespace rcoll::collectives
