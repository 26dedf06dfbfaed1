// The --check data of the peer benchmarks: float32 integers that depend on
// rank and position, so every library is verified against the same serial
// reference that each rank computes for itself. For allreduce and bcast the
// formulas are rcoll-bench's (bench/rcoll-bench/buffers.cpp, float32 sum);
// the other ops extend them as follows, and rcoll-bench's --check for those
// ops should use the same values so that the two stay reconcilable.
//
// Values, with n ranks, j a position in a rank's send vector, i one within
// a block, b the block (elements per rank, common/peer_layout.hpp):
//   sum_value(r, j)     = ((r + 1) * (j % 7 + 1)) % bound + 1, bound = clamp(2^24 / n, 1, 7)
//                         (rcoll-bench's allreduce_input for sum and float32)
//   move_value(s, d, i) = (3 i + 7 s + 11 d) % 97 + 1
//                         (a block from rank s meant for rank d; with d = 0 it
//                         is rcoll-bench's bcast_input(s, i))
// Inputs (rank r's send buffer, position j) and what rank r must receive at
// position k:
//   allreduce, reduce   in sum_value(r, j)            out Σ_q sum_value(q, k) (reduce: root only)
//   reduce_scatter      in sum_value(r, j)            out Σ_q sum_value(q, r b + k)
//   bcast               in move_value(root, 0, j) on the root, 0 elsewhere (one buffer)
//                                                     out move_value(root, 0, k)
//   allgather, gather   in move_value(r, 0, j)        out move_value(k / b, 0, k % b) (gather: root only)
//   scatter             in move_value(r, j / b, j % b) (read on the root only)
//                                                     out move_value(root, r, k)
//   alltoall            in move_value(r, j / b, j % b) out move_value(k / b, r, k % b)
// Errors of one rank: receive elements that differ from what it must
// receive (none counted where the result is undefined: reduce and gather
// off the root), plus, out of place, send elements the call changed. The
// runner sums them over ranks. The receive buffer is zeroed first (no value
// above is 0).
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
  static std::int64_t move_value(int src, int dst, std::size_t i);

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
