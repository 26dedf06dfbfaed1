#include "common/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include <mutex>
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

void set_level(std::string_view name) {
  auto level = spdlog::level::from_str(std::string(name));
  // from_str answers "off" for unknown names; keep warnings on instead.
  if (level == spdlog::level::off && name != "off") level = spdlog::level::warn;
  get().set_level(level);
}

}  // namespace rcoll::log
