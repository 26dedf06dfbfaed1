// Message buffers of the benchmark and the --check data: every rank fills
// its input with integers that depend on rank and index, chosen so that the
// reduction over all ranks is exact in every dtype; each rank computes the
// expected result itself (a serial reference) and counts wrong elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <rcoll/rcoll.hpp>

#include "common/aligned_buffer.hpp"
#include "options.hpp"

namespace rcoll::bench {

// What one rank puts in and expects back for one operation. The patterns
// repeat with a short period, so filling and checking are O(count).
class CheckData {
 public:
  CheckData(const BenchOptions& options, int rank, int size);

  // This rank's input (bcast: the root's data on the root, zeros elsewhere).
  void fill_input(void* buf, std::size_t count) const;
  // Zeros: a value no correct result contains.
  void fill_sentinel(void* buf, std::size_t count) const;
  // Elements of `buf` that differ from the expected result.
  std::size_t count_errors(const void* buf, std::size_t count) const;
  // Elements of `buf` that differ from this rank's input (an out-of-place
  // send buffer must come back untouched).
  std::size_t count_changed_input(const void* buf, std::size_t count) const;

  // One period of the input and the expected result, as integers.
  const std::vector<std::int64_t>& input_period() const noexcept { return input_; }
  const std::vector<std::int64_t>& expected_period() const noexcept { return expected_; }

 private:
  DataType dtype_;
  std::vector<std::int64_t> input_;
  std::vector<std::int64_t> expected_;
};

// The value rank `rank` of `size` contributes at pattern position `j` for
// allreduce with `op`; bounded so that the reduction is exact in `type`.
std::int64_t allreduce_input(ReduceOp op, DataType type, int rank, int size, std::size_t j);
// The root's bcast data at pattern position `j` (1..97, exact in every dtype).
std::int64_t bcast_input(int root, std::size_t j);

}  // namespace rcoll::bench
