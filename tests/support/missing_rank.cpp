#include "support/missing_rank.hpp"

#include <gtest/gtest.h>

namespace rcoll::test {

void expect_timeouts(const std::vector<MissingRankOutcome>& outcomes, const std::string& name, bool all) {
  constexpr auto timeout = std::chrono::milliseconds(300);
  for (std::size_t rank = 0; rank < outcomes.size(); ++rank) {
    const MissingRankOutcome& o = outcomes[rank];
    if (all || rank == 0 || o.timed_out) {
      EXPECT_TRUE(o.timed_out) << name << " rank " << rank << ": " << o.message;
      EXPECT_NE(o.message.find("call #0: " + name), std::string::npos) << name << " rank " << rank << ": " << o.message;
      EXPECT_GE(o.elapsed, timeout) << name;
    }
    EXPECT_LT(o.elapsed, timeout + std::chrono::seconds(3)) << name;
  }
}

}  // namespace rcoll::test
