// ensure_fd_limit: a listener that needs more descriptors than the soft
// open-file limit raises it (to the hard limit), and says so when even
// the hard limit is too low.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "common/fd_limit.hpp"
#include "support/captured_log.hpp"

namespace rcoll {
namespace {

class FdLimit : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved_), 0); }
  void TearDown() override { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  void set_soft(rlim_t soft) {
    rlimit l = saved_;
    l.rlim_cur = soft;
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &l), 0);
  }
  rlim_t soft_now() const {
    rlimit l{};
    ::getrlimit(RLIMIT_NOFILE, &l);
    return l.rlim_cur;
  }
  rlimit saved_{};
};

TEST_F(FdLimit, ASoftLimitBelowTheNeedIsRaisedToTheHardOne) {
  if (saved_.rlim_max != RLIM_INFINITY && saved_.rlim_max < 2048) GTEST_SKIP() << "hard limit below 2048 here";
  set_soft(256);
  test::CapturedLog log(spdlog::level::warn);
  const std::size_t soft = ensure_fd_limit(2000, "bootstrap");
  EXPECT_GE(soft, 2000u);
  EXPECT_EQ(soft_now(), static_cast<rlim_t>(soft));
  EXPECT_EQ(log.text(), "");
}

TEST_F(FdLimit, ASoftLimitThatSufficesIsLeftAlone) {
  set_soft(std::min<rlim_t>(saved_.rlim_max, 4096));
  const rlim_t before = soft_now();
  EXPECT_EQ(ensure_fd_limit(100, "bootstrap"), static_cast<std::size_t>(before));
  EXPECT_EQ(soft_now(), before);
}

TEST_F(FdLimit, AHardLimitBelowTheNeedIsNamedInAWarning) {
  if (saved_.rlim_max == RLIM_INFINITY) GTEST_SKIP() << "no hard limit here";
  const std::size_t beyond = static_cast<std::size_t>(saved_.rlim_max) + 1000;
  test::CapturedLog log(spdlog::level::warn);
  EXPECT_EQ(ensure_fd_limit(beyond, "rank 2: tcp transport"), static_cast<std::size_t>(saved_.rlim_max));
  EXPECT_NE(log.text().find("rank 2: tcp transport: the open-file limit is " + std::to_string(saved_.rlim_max)),
            std::string::npos)
      << log.text();
}

}  // namespace
}  // namespace rcoll
