#include "common/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <optional>
#include <string>

namespace rcoll::log {
namespace {

std::string pattern_for(int rank) {
  std::string who = rank >= 0 ? std::to_string(rank) : std::string("?");
  return "[rcoll r" + who + "] [%l] %v";
}

std::shared_ptr<spdlog::logger> make_logger() {
  // stderr, unsynchronised sink behind our own mutex-free use: spdlog's _mt
  // sink is used because ranks-as-threads tests log from several threads.
  auto logger = std::make_shared<spdlog::logger>("rcoll", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_level(spdlog::level::warn);
  logger->set_pattern(pattern_for(-1));
  logger->flush_on(spdlog::level::warn);
  return logger;
}

}  // namespace

spdlog::logger& get() {
  static std::shared_ptr<spdlog::logger> logger = make_logger();
  return *logger;
}

void set_rank(int rank) { get().set_pattern(pattern_for(rank)); }

std::optional<spdlog::level::level_enum> parse_level(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  // from_str also takes "warning", "err" and "critical"; it answers "off"
  // for any name it does not know.
  auto level = spdlog::level::from_str(lower);
  if (level == spdlog::level::off && lower != "off") return std::nullopt;
  return level;
}

void set_level_from(std::string_view variable, std::string_view value) {
  if (auto level = parse_level(value)) return get().set_level(*level);
  get().set_level(spdlog::level::warn);
  // Once per process and value: every communicator reads the variable again.
  static std::mutex mutex;
  static std::string warned;
  std::lock_guard lock(mutex);
  if (warned == value) return;
  warned = value;
  warn("{}='{}' is not a log level (expected off, error, warn, info, debug or trace, in any case); "
       "logging at warn",
       variable, value);
}

}  // namespace rcoll::log
