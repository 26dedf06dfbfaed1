#include "common/overlap_report.hpp"

namespace rcoll::bench {

void print_overlap_header(std::FILE* out, const std::string& library, int ranks, int poll_every_us) {
  std::fprintf(out, "# overlap: %s, %d ranks, non-blocking allreduce (float32 sum) beside a computation of the same\n",
               library.c_str(), ranks);
  if (poll_every_us > 0)
    std::fprintf(out, "# length that tests the request every %d us; hidden = (comm + compute - overlap) / comm\n",
                 poll_every_us);
  else
    std::fprintf(out, "# length that waits only at its end; hidden = (comm + compute - overlap) / comm\n");
  std::fprintf(out, "# %10s %12s %12s %12s %10s\n", "bytes", "comm_us", "compute_us", "overlap_us", "hidden_pct");
}

void print_overlap_row(std::FILE* out, std::size_t bytes, const OverlapResult& result) {
  std::fprintf(out, "  %10zu %12.2f %12.2f %12.2f %10.1f\n", bytes, result.comm_us, result.compute_us,
               result.overlap_us, result.hidden * 100);
  std::fflush(out);
}

}  // namespace rcoll::bench
