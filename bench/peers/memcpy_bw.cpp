// memcpy_bw: memcpy bandwidth of one core, a physical limit that
// bench/compare shows next to the collectives' busbw. Per size and
// repetition, memcpy of `size` bytes between two page-aligned, pre-touched
// buffers, repeated until --min-total bytes are copied; GB/s = bytes copied
// (not bytes read plus written) / time.
#include <chrono>
#include <cstring>

#include "common/aligned_buffer.hpp"
#include "common/limit_report.hpp"

int main(int argc, char** argv) {
  using namespace rcoll::peers;
  const LimitOptions options =
      parse_limit_options(argc, argv, "memcpy_bw", "memcpy bandwidth between two buffers of each size");
  std::vector<LimitResult> results;
  for (std::size_t bytes : options.sizes) {
    rcoll::bench::AlignedBuffer src(bytes), dst(bytes);
    std::memset(src.data(), 1, bytes);
    std::memset(dst.data(), 2, bytes);
    const std::size_t copies = transfers_for(options, bytes);
    LimitResult result{bytes, {}};
    for (int rep = 0; rep < options.reps; ++rep) {
      const auto start = std::chrono::steady_clock::now();
      for (std::size_t i = 0; i < copies; ++i) {
        std::memcpy(dst.data(), src.data(), bytes);
        // Keeps the compiler from merging or dropping repeated copies.
        asm volatile("" : : "r"(dst.data()) : "memory");
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      result.values.push_back(static_cast<double>(copies * bytes) / seconds / 1e9);
    }
    results.push_back(std::move(result));
  }
  report_limits("memcpy_bw", options, results, LimitUnit::gbps);
  return 0;
}
