// The --check data of the peer benchmarks: float32 integers that depend on
// rank and index, the same formulas as rcoll-bench's (bench/rcoll-bench/
// buffers.cpp) for float32 sum and bcast, so every library is verified
// against the same serial reference.
#pragma once

#include <cstddef>
#include <vector>

#include "common/peer_options.hpp"

namespace rcoll::peers {

class CheckData {
 public:
  CheckData(const PeerOptions& options, int rank, int size);

  // This rank's input (bcast: the root's data on the root, zeros elsewhere).
  void fill_input(float* buf, std::size_t count) const;
  // Zeros: a value no correct result contains.
  static void fill_sentinel(float* buf, std::size_t count);
  // Elements that differ from the expected result.
  std::size_t count_errors(const float* buf, std::size_t count) const;
  // Elements that differ from this rank's input.
  std::size_t count_changed_input(const float* buf, std::size_t count) const;

 private:
  std::vector<float> input_;
  std::vector<float> expected_;
};

}  // namespace rcoll::peers
