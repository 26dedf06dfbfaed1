// DropLog: connections that end without joining are counted, never logged
// one by one; at most one summary line per interval, with the counts.
#include <gtest/gtest.h>

#include <string>

#include "bootstrap/drop_log.hpp"
#include "support/captured_log.hpp"

namespace rcoll::bootstrap {
namespace {

using namespace std::chrono_literals;

std::size_t count_lines(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

TEST(BootstrapDropLog, AFloodGivesOneSummaryLinePerInterval) {
  test::CapturedLog log(spdlog::level::warn);
  auto start = DropLog::Clock::now();
  DropLog drops(start, 5s);
  // 10,000 connections over 12 s (one per 1.2 ms), from two sources.
  auto now = start;
  for (int i = 0; i < 10000; ++i) {
    now = start + std::chrono::microseconds(1200) * i;
    drops.count(i % 4 == 0 ? "10.0.0.9" : "127.0.0.1", i % 2 == 0 ? "evicted" : "sent no JOIN in time");
    drops.report_if_due(now);
  }
  drops.report(now);
  std::string text = log.text();
  // The first at once, then one per 5 s (at 5 s and 10 s), then the rest at the end.
  EXPECT_EQ(count_lines(text), 4u) << text;
  EXPECT_EQ(drops.total(), 10000u);
  EXPECT_NE(text.find("closed 1 unauthenticated connection (1 from 10.0.0.9; 1 evicted) in the last 0.0 s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("closed 4167 unauthenticated connections (3126 from 127.0.0.1; 2083 evicted; 2084 sent no "
                      "JOIN in time) in the last 5.0 s"),
            std::string::npos)
      << text;
}

TEST(BootstrapDropLog, NothingToSayNothingSaid) {
  test::CapturedLog log(spdlog::level::warn);
  auto start = DropLog::Clock::now();
  DropLog drops(start, 5s);
  EXPECT_FALSE(drops.next_report().has_value());
  drops.report_if_due(start + 60s);
  drops.report(start + 61s);
  EXPECT_EQ(log.text(), "");
}

TEST(BootstrapDropLog, SourcesBeyondTheCapAreLumpedTogether) {
  test::CapturedLog log(spdlog::level::warn);
  auto start = DropLog::Clock::now();
  DropLog drops(start, 5s);
  for (int i = 0; i < 1000; ++i) drops.count("10.1." + std::to_string(i / 256) + "." + std::to_string(i % 256), "evicted");
  drops.report(start + 1s);
  EXPECT_NE(log.text().find("(968 from other addresses; 1000 evicted)"), std::string::npos) << log.text();
}

}  // namespace
}  // namespace rcoll::bootstrap
