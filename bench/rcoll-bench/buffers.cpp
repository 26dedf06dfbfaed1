#include "buffers.hpp"

#include <cstring>

namespace rcoll::bench {
namespace {

// What a plan needs to know about the call besides the options.
struct Shape {
  int rank;
  int ranks;
  std::size_t block;
  std::size_t total() const { return block * static_cast<std::size_t>(ranks); }
  std::size_t at(int r) const { return block * static_cast<std::size_t>(r); }
};

// Block r of a buffer of `ranks` blocks holds block_period(owner(r), dest(r)).
template <typename Owner, typename Dest>
Pieces blocks(const Shape& s, Owner owner, Dest dest) {
  Pieces pieces;
  for (int r = 0; r < s.ranks; ++r) pieces.push_back({s.at(r), s.block, block_period(owner(r), dest(r))});
  return pieces;
}

// This rank's input either in a send buffer of `count` elements or, in
// place, in the receive buffer at `offset`.
void place_input(RankPlan& p, bool in_place, Piece input, std::size_t offset) {
  p.in_place = in_place;
  if (in_place) {
    input.offset = offset;
    p.recv_input.push_back(std::move(input));
  } else {
    p.send_count = input.count;
    p.send.push_back(std::move(input));
  }
}

RankPlan allreduce_plan(const BenchOptions& o, const Shape& s) {
  RankPlan p;
  place_input(p, o.inplace, {0, s.block, reduction_input(o.redop, o.dtype, s.rank, s.ranks)}, 0);
  p.recv_count = s.block;
  p.expected.push_back({0, s.block, reduction_result(o.redop, o.dtype, s.ranks)});
  return p;
}

RankPlan bcast_plan(const BenchOptions& o, const Shape& s) {
  RankPlan p;
  p.recv_count = s.block;
  if (s.rank == o.root) p.recv_input.push_back({0, s.block, bcast_period(o.root)});
  p.expected.push_back({0, s.block, bcast_period(o.root)});
  return p;
}

// Non-roots send only; their recv is ignored and gets nullptr.
RankPlan reduce_plan(const BenchOptions& o, const Shape& s) {
  RankPlan p;
  const bool root = s.rank == o.root;
  place_input(p, o.inplace && root, {0, s.block, reduction_input(o.redop, o.dtype, s.rank, s.ranks)}, 0);
  if (root) {
    p.recv_count = s.block;
    p.expected.push_back({0, s.block, reduction_result(o.redop, o.dtype, s.ranks)});
  }
  return p;
}

// Input: the reduction pattern over all ranks' blocks; this rank's result
// is block `rank` of the reduced pattern, hence the phase. In place, the
// input is the receive buffer and the result its first block.
RankPlan reduce_scatter_plan(const BenchOptions& o, const Shape& s) {
  RankPlan p;
  place_input(p, o.inplace, {0, s.total(), reduction_input(o.redop, o.dtype, s.rank, s.ranks)}, 0);
  p.recv_count = o.inplace ? s.total() : s.block;
  p.expected.push_back({0, s.block, reduction_result(o.redop, o.dtype, s.ranks), s.at(s.rank) % kPeriod});
  return p;
}

RankPlan allgather_plan(const BenchOptions& o, const Shape& s) {
  RankPlan p;
  place_input(p, o.inplace, {0, s.block, block_period(s.rank, -1)}, s.at(s.rank));
  p.recv_count = s.total();
  p.expected = blocks(s, [](int q) { return q; }, [](int) { return -1; });
  return p;
}

RankPlan alltoall_plan(const BenchOptions&, const Shape& s) {
  RankPlan p;
  p.send_count = s.total();
  p.send = blocks(s, [&](int) { return s.rank; }, [](int d) { return d; });
  p.recv_count = s.total();
  p.expected = blocks(s, [](int q) { return q; }, [&](int) { return s.rank; });
  return p;
}

// Non-roots send only; their recv is ignored and gets nullptr.
RankPlan gather_plan(const BenchOptions& o, const Shape& s) {
  RankPlan p;
  const bool root = s.rank == o.root;
  place_input(p, o.inplace && root, {0, s.block, block_period(s.rank, o.root)}, s.at(s.rank));
  if (root) {
    p.recv_count = s.total();
    p.expected = blocks(s, [](int q) { return q; }, [&](int) { return o.root; });
  }
  return p;
}

// Only the root sends (others get nullptr). In place, the root passes
// rcoll::in_place as recv and its block stays in send, which the
// unchanged-send check covers.
RankPlan scatter_plan(const BenchOptions& o, const Shape& s) {
  RankPlan p;
  const bool root = s.rank == o.root;
  if (root) {
    p.send_count = s.total();
    p.send = blocks(s, [&](int) { return o.root; }, [](int d) { return d; });
    p.in_place = o.inplace;
  }
  if (!p.in_place) {
    p.recv_count = s.block;
    p.expected.push_back({0, s.block, block_period(o.root, s.rank)});
  }
  return p;
}

}  // namespace

RankPlan plan_rank(const BenchOptions& options, int rank, int ranks, std::size_t block) {
  const Shape shape{rank, ranks, block};
  switch (options.op) {
    case BenchOp::allreduce: return allreduce_plan(options, shape);
    case BenchOp::bcast: return bcast_plan(options, shape);
    case BenchOp::reduce: return reduce_plan(options, shape);
    case BenchOp::allgather: return allgather_plan(options, shape);
    case BenchOp::reduce_scatter: return reduce_scatter_plan(options, shape);
    case BenchOp::alltoall: return alltoall_plan(options, shape);
    case BenchOp::gather: return gather_plan(options, shape);
    case BenchOp::scatter: return scatter_plan(options, shape);
    case BenchOp::barrier: break;
  }
  return {};
}

void write_inputs(const RankPlan& plan, DataType type, void* send, void* recv) {
  if (plan.send_count != 0) write_pieces(type, plan.send, send);
  if (plan.recv_count != 0) {
    std::memset(recv, 0, plan.recv_count * dtype_size(type));  // all-zero bits are 0 in every dtype
    write_pieces(type, plan.recv_input, recv);
  }
}

std::uint64_t count_errors(const RankPlan& plan, DataType type, const void* send, const void* recv) {
  std::uint64_t errors = 0;
  if (plan.send_count != 0) errors += count_mismatches(type, plan.send, send);
  if (plan.recv_count != 0) errors += count_mismatches(type, plan.expected, recv);
  return errors;
}

}  // namespace rcoll::bench
