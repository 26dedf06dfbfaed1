// RCOLL_LOG: level names in any case; anything else keeps warn and says so
// once, on stderr, naming the variable, the value and the accepted names.
#include <gtest/gtest.h>

#include <string>

#include "common/log.hpp"
#include "support/captured_log.hpp"

namespace rcoll::log {
namespace {

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(LogLevel, NamesAreTakenInAnyCase) {
  test::CapturedLog restore(get().level());
  EXPECT_EQ(parse_level("debug"), spdlog::level::debug);
  EXPECT_EQ(parse_level("DEBUG"), spdlog::level::debug);
  EXPECT_EQ(parse_level("Info"), spdlog::level::info);
  EXPECT_EQ(parse_level("WARN"), spdlog::level::warn);
  EXPECT_EQ(parse_level("Off"), spdlog::level::off);
  EXPECT_EQ(parse_level("loud"), std::nullopt);
  EXPECT_EQ(parse_level(""), std::nullopt);
  set_level_from("RCOLL_LOG", "DEBUG");
  EXPECT_EQ(get().level(), spdlog::level::debug);
  set_level_from("RCOLL_LOG", "Trace");
  EXPECT_EQ(get().level(), spdlog::level::trace);
}

TEST(LogLevel, AnUnknownNameKeepsWarnAndWarnsOnce) {
  test::CapturedLog log(spdlog::level::off);
  set_level_from("RCOLL_LOG", "verbose please");
  EXPECT_EQ(get().level(), spdlog::level::warn);
  set_level_from("RCOLL_LOG", "verbose please");  // a second communicator reads it again
  const std::string text = log.text();
  EXPECT_EQ(count(text, "RCOLL_LOG='verbose please' is not a log level"), 1u) << text;
  EXPECT_NE(text.find("expected off, error, warn, info, debug or trace, in any case"), std::string::npos) << text;
  EXPECT_NE(text.find("[warning]"), std::string::npos) << text;
}

}  // namespace
}  // namespace rcoll::log
