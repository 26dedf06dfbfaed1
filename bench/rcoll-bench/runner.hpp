// Runs one operation at one message size: warm-up, barrier, timed
// iterations, and (with --check) one more verified run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <rcoll/rcoll.hpp>

#include "buffers.hpp"
#include "calls.hpp"
#include "common/aligned_buffer.hpp"
#include "common/size_result.hpp"
#include "options.hpp"

namespace rcoll::bench {

class Runner {
 public:
  // Allocates this rank's buffers for the largest of `sizes`. `comm` must
  // outlive this.
  Runner(Comm& comm, const BenchOptions& options, const std::vector<std::size_t>& sizes);

  // Collective: every rank calls it with the same `bytes`. Returns nullopt
  // (on every rank) when `bytes` is smaller than one element (per rank,
  // for the ops that split it into blocks; layout.hpp).
  std::optional<SizeResult> run_size(std::size_t bytes);

 private:
  std::vector<double> time_iterations(std::size_t block, const CallBuffers& call);
  std::uint64_t verify(const RankPlan& plan, std::size_t block, const CallBuffers& call);
  RankPlan plan(std::size_t block) const;

  Comm& comm_;
  const BenchOptions& options_;
  AlignedBuffer send_;  // empty where this rank passes no send buffer
  AlignedBuffer recv_;  // empty where this rank passes no receive buffer
};

}  // namespace rcoll::bench
