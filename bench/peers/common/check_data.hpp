// The --check data of the peer benchmarks: float32 integers that depend on
// rank and position, so every library is verified against the same serial
// reference that each rank computes for itself. The values are rcoll-bench's
// for float32 and sum (bench/rcoll-bench/patterns.cpp: allreduce_input,
// bcast_input, block_input, each over a period of 77 positions; buffers.cpp:
// which block goes where), so a peer's and rcoll's --check are one check.
//
// With n ranks, j a position in a rank's send vector, i one within a block,
// b the block (elements per rank, common/peer_layout.hpp):
//   sum_value(r, j)       = ((r + 1) * (j % 7 + 1)) % bound + 1, bound = clamp(2^24 / n, 1, 7)
//   bcast_value(s, j)     = (3 (j % 77) + 7 s) % 97 + 1
//   block_value(s, d, i)  = (3 (i % 77) + 7 s + 13 (d + 1)) % 127 + 1
//                           (the block rank s sends towards rank d; d = -1:
//                           the block every rank receives, allgather)
// Inputs (rank r's send buffer, position j) and what rank r must receive at
// position k:
//   allreduce, reduce   in sum_value(r, j)               out Σ_q sum_value(q, k) (reduce: root only)
//   reduce_scatter      in sum_value(r, j)               out Σ_q sum_value(q, r b + k)
//   bcast               in bcast_value(root, j) on the root, 0 elsewhere (one buffer)
//                                                        out bcast_value(root, k)
//   allgather           in block_value(r, -1, j)         out block_value(k / b, -1, k % b)
//   gather              in block_value(r, root, j)       out block_value(k / b, root, k % b) (root only)
//   scatter             in block_value(r, j / b, j % b)  out block_value(root, r, k)
//                       (only the root's is sent)
//   alltoall            in block_value(r, j / b, j % b)  out block_value(k / b, r, k % b)
// Errors of one rank: receive elements that differ from what it must
// receive (none counted where the result is undefined: reduce and gather
// off the root), plus, out of place, send elements the call changed
// (scatter: off the root too, where MPI ignores the buffer). The runner
// sums them over ranks. The receive buffer is zeroed first (no value above
// is 0).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/peer_layout.hpp"
#include "common/peer_options.hpp"

namespace rcoll::peers {

class CheckData {
 public:
  CheckData(const PeerOptions& options, int rank, int size);

  // This rank's input: its send buffer of `layout`, or the one buffer of
  // bcast and in-place allreduce (layout.send_count == 0).
  void fill_input(float* buf, const PeerLayout& layout) const;
  // Zeros: a value no correct result contains.
  static void fill_sentinel(float* buf, std::size_t count);
  // Elements of the receive buffer that differ from the expected result (0
  // where this rank's result is undefined).
  std::size_t count_errors(const float* buf, const PeerLayout& layout) const;
  // Elements of the send buffer that differ from this rank's input.
  std::size_t count_changed_input(const float* buf, const PeerLayout& layout) const;

  static std::int64_t sum_value(int rank, int size, std::size_t j);
  static std::int64_t bcast_value(int root, std::size_t j);
  static std::int64_t block_value(int owner, int dest, std::size_t i);

 private:
  float input(std::size_t j, std::size_t block) const;
  float expected(std::size_t k, std::size_t block) const;

  PeerOp op_;
  int rank_;
  int size_;
  int root_;
  // Σ_q sum_value(q, j) by j % 7 (sum_value depends on j only through it).
  std::array<float, 7> sums_{};
};

}  // namespace rcoll::peers
