// The computation of the overlap benchmark (overlap.hpp): arithmetic on a
// 16 KiB array that stays in the L1 cache, so that it takes the core from
// the communication (as a backward pass does) without competing for memory
// bandwidth. Calibrated once per process; run(us) then does about `us`
// microseconds of it, calling poll() about every `poll_every_us` (0: never),
// as an application that calls test() between pieces of work.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace rcoll::bench {

class ComputeLoop {
 public:
  ComputeLoop();  // calibrates: a few ms

  template <typename Poll>
  void run(double us, double poll_every_us, Poll&& poll) {
    const auto total = static_cast<std::size_t>(us * passes_per_us_);
    const std::size_t every =
        poll_every_us > 0 ? std::max<std::size_t>(1, static_cast<std::size_t>(poll_every_us * passes_per_us_)) : 0;
    for (std::size_t done = 0; done < total; ++done) {
      pass();
      if (every != 0 && (done + 1) % every == 0) poll();
    }
  }

  double passes_per_us() const noexcept { return passes_per_us_; }

 private:
  void pass();

  std::vector<float> data_;
  double passes_per_us_ = 1;
};

}  // namespace rcoll::bench
