#include "common/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace rcoll::log {
namespace {

std::string pattern_for(int rank) {
  std::string who = rank >= 0 ? std::to_string(rank) : std::string("?");
  return "[rcoll r" + who + "] [%l] %v";
}

spdlog::level::level_enum level_from_env() {
  const char* value = std::getenv("RCOLL_LOG");
  if (value == nullptr || *value == '\0') return spdlog::level::warn;
  auto level = spdlog::level::from_str(value);
  // from_str answers "off" for unknown names; keep warnings on instead.
  if (level == spdlog::level::off && std::string(value) != "off") return spdlog::level::warn;
  return level;
}

std::shared_ptr<spdlog::logger> make_logger() {
  // stderr, unsynchronised sink behind our own mutex-free use: spdlog's _mt
  // sink is used because ranks-as-threads tests log from several threads.
  auto logger = std::make_shared<spdlog::logger>("rcoll", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_level(level_from_env());
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

}  // namespace rcoll::log
