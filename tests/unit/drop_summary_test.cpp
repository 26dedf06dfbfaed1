// DropSummary: connections dropped before they prove the job token are
// counted, never logged one by one; at most one summary line per period,
// with the counts by reason and the busiest source.
#include <gtest/gtest.h>

#include <string>

#include "common/drop_summary.hpp"
#include "support/captured_log.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;

std::size_t count_lines(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(DropSummary, AFloodGivesOneSummaryLinePerPeriod) {
  test::CapturedLog log(spdlog::level::warn);
  auto start = DropSummary::Clock::now();
  {
    DropSummary drops("bootstrap", 5s, start);
    // 10,000 connections over 12 s (one per 1.2 ms), from two sources.
    auto now = start;
    for (int i = 0; i < 10000; ++i) {
      now = start + std::chrono::microseconds(1200) * i;
      drops.count(i % 2 == 0 ? "evicted" : "sent no JOIN in time", i % 4 == 0 ? "10.0.0.9" : "127.0.0.1");
      drops.report_if_due(now);
    }
    EXPECT_EQ(drops.total(), 10000u);
    drops.report(now);
  }
  const std::string text = log.text();
  // The first at once, then one per 5 s (at 5 s and 10 s), then the rest at the end.
  EXPECT_EQ(count_lines(text), 4u) << text;
  EXPECT_TRUE(contains(text, "bootstrap: dropped 1 connection that did not prove the job token in the last 0.0 s "
                             "(1 evicted; 1 from 10.0.0.9; 1 since it opened)"))
      << text;
  EXPECT_TRUE(contains(text, "bootstrap: dropped 4167 connections that did not prove the job token in the last 5.0 s "
                             "(2083 evicted, 2084 sent no JOIN in time; 3126 from 127.0.0.1; 4168 since it opened)"))
      << text;
}

TEST(DropSummary, NothingToSayNothingSaid) {
  test::CapturedLog log(spdlog::level::warn);
  auto start = DropSummary::Clock::now();
  {
    DropSummary drops("bootstrap", 5s, start);
    EXPECT_FALSE(drops.next_report().has_value());
    drops.report_if_due(start + 60s);
    drops.report(start + 61s);
  }
  EXPECT_EQ(log.text(), "");
}

TEST(DropSummary, SourcesBeyondTheCapAreLumpedTogether) {
  test::CapturedLog log(spdlog::level::warn);
  auto start = DropSummary::Clock::now();
  DropSummary drops("bootstrap", 5s, start);
  for (int i = 0; i < 1000; ++i) drops.count("evicted", "10.1." + std::to_string(i / 256) + "." + std::to_string(i % 256));
  drops.report(start + 1s);
  EXPECT_TRUE(contains(log.text(), "(1000 evicted; 968 from other addresses; 1000 since it opened)")) << log.text();
}

// A listener that keeps no addresses (the TCP transport's) says no source;
// what is pending when it closes is reported then.
TEST(DropSummary, WithoutSourcesAndAtTheEnd) {
  test::CapturedLog log(spdlog::level::warn);
  auto start = DropSummary::Clock::now();
  {
    DropSummary drops("rank 3: tcp listener", 5s, start);
    drops.count("not an rcoll hello");
    drops.report_if_due(start);
    drops.count("silent past the first-frame limit");
    drops.count("silent past the first-frame limit");
    drops.report_if_due(start + 1s);  // not due yet: one line a period
    ASSERT_TRUE(drops.next_report().has_value());
    EXPECT_EQ(*drops.next_report(), start + 5s);
  }
  const std::string text = log.text();
  EXPECT_EQ(count_lines(text), 2u) << text;
  EXPECT_TRUE(contains(text, "rank 3: tcp listener: dropped 1 connection that did not prove the job token in the "
                             "last 0.0 s (1 not an rcoll hello; 1 since it opened)"))
      << text;
  EXPECT_TRUE(contains(text, "dropped 2 connections that did not prove the job token in the last ")) << text;
  EXPECT_TRUE(contains(text, "(2 silent past the first-frame limit; 3 since it opened)")) << text;
}

}  // namespace
}  // namespace rcoll
