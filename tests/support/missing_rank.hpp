// A collective call that one rank never joins: the others must fail with
// TimeoutError shortly after the deadline, not hang. Runs `call` on ranks
// 0 .. size - 2 of a world of `size` (the last rank never calls), each with
// call label "call #0", and reports how each rank came out.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "rcoll/errors.hpp"
#include "support/collective_job.hpp"
#include "support/run_ranks.hpp"

namespace rcoll::test {

struct MissingRankOutcome {
  bool timed_out = false;
  std::string message;  // TimeoutError::what(), or "returned without error"
  std::chrono::milliseconds elapsed{0};
};

inline std::vector<MissingRankOutcome> run_without_last_rank(
    const std::string& kind, int size, std::chrono::milliseconds timeout,
    const std::function<void(const collectives::Context&)>& call) {
  Job job(kind, size);
  std::vector<MissingRankOutcome> outcomes(static_cast<std::size_t>(size - 1));
  run_ranks(size - 1, [&](int rank) {
    MissingRankOutcome& out = outcomes[static_cast<std::size_t>(rank)];
    const auto start = std::chrono::steady_clock::now();
    try {
      call(job.context(rank, 0, "call #0", 64, timeout));
      out.message = "returned without error";
    } catch (const TimeoutError& e) {
      out.timed_out = true;
      out.message = e.what();
    }
    out.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  });
  return outcomes;
}

// Checks the outcomes of run_without_last_rank with a `timeout` of 300 ms:
// no rank hangs (each returns within the timeout + 3 s, 10 s under a
// sanitizer), and every rank
// (`all`), or rank 0 and any other that timed out, raised TimeoutError
// naming "call #0: <name>" no earlier than the timeout. (`all` false: for a
// rooted call where a rank may finish its part before the missing one matters.)
void expect_timeouts(const std::vector<MissingRankOutcome>& outcomes, const std::string& name, bool all);

}  // namespace rcoll::test
