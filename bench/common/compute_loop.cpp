#include "common/compute_loop.hpp"

#include <algorithm>
#include <chrono>

namespace rcoll::bench {
namespace {

constexpr std::size_t elements = 4096;   // 16 KiB of float32
constexpr std::size_t calibration_passes = 2000;
constexpr int calibration_rounds = 5;

}  // namespace

ComputeLoop::ComputeLoop() : data_(elements, 1.0f) {
  double fastest_s = 1e9;
  for (int round = 0; round < calibration_rounds; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < calibration_passes; ++i) pass();
    fastest_s = std::min(fastest_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  passes_per_us_ = static_cast<double>(calibration_passes) / (fastest_s * 1e6);
}

// One multiply-add per element; the volatile read keeps the compiler from
// folding passes together or dropping them.
void ComputeLoop::pass() {
  volatile float scale = 0.999999f;
  const float s = scale;
  for (float& x : data_) x = x * s + 0.000001f;
}

}  // namespace rcoll::bench
