#include "support/missing_rank.hpp"

#include <gtest/gtest.h>

namespace rcoll::test {

namespace {

// How long after its deadline a rank may take to give up: the time to
// cancel and unwind, which sanitizers stretch (TSan 5-15x, more while
// other suites share the cores). Still far from a hang.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr auto unwind_slack = std::chrono::seconds(10);
#else
constexpr auto unwind_slack = std::chrono::seconds(3);
#endif

}  // namespace

void expect_timeouts(const std::vector<MissingRankOutcome>& outcomes, const std::string& name, bool all) {
  constexpr auto timeout = std::chrono::milliseconds(300);
  for (std::size_t rank = 0; rank < outcomes.size(); ++rank) {
    const MissingRankOutcome& o = outcomes[rank];
    if (all || rank == 0 || o.timed_out) {
      EXPECT_TRUE(o.timed_out) << name << " rank " << rank << ": " << o.message;
      EXPECT_NE(o.message.find("call #0: " + name), std::string::npos) << name << " rank " << rank << ": " << o.message;
      EXPECT_GE(o.elapsed, timeout) << name;
    }
    EXPECT_LT(o.elapsed, timeout + unwind_slack) << name;
  }
}

}  // namespace rcoll::test
