// Runs one operation at one message size: warm-up, barrier, timed
// iterations, and (with --check) one more verified run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <rcoll/rcoll.hpp>

#include "buffers.hpp"
#include "common/size_result.hpp"
#include "options.hpp"

namespace rcoll::bench {

class Runner {
 public:
  // Allocates buffers for the largest of `sizes`. `comm` must outlive this.
  Runner(Comm& comm, const BenchOptions& options, const std::vector<std::size_t>& sizes);

  // Collective: every rank calls it with the same `bytes`. Returns nullopt
  // (on every rank) when `bytes` is smaller than one element.
  std::optional<SizeResult> run_size(std::size_t bytes);

 private:
  void run_once(std::size_t count);
  std::vector<double> time_iterations(std::size_t count);
  std::uint64_t verify(std::size_t count);
  double bus_factor() const noexcept;
  void* input() noexcept;

  Comm& comm_;
  const BenchOptions& options_;
  CheckData check_;
  AlignedBuffer send_;  // unused for in-place allreduce and for bcast
  AlignedBuffer recv_;
};

}  // namespace rcoll::bench
