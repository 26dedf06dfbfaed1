// Logging: one spdlog logger per process, every line prefixed with the rank.
// Level warn until set_level (the communicator sets RCOLL_LOG's:
// comm/environment.hpp).
#pragma once

#include <spdlog/spdlog.h>

#include <string_view>

namespace rcoll::log {

// The library's logger; created on first use.
spdlog::logger& get();
// Sets the rank shown in the prefix ("[rcoll r3] ..."); -1 shows "?".
void set_rank(int rank);
// off, error, warn, info, debug or trace; any other name: warn.
void set_level(std::string_view name);

template <typename... Args>
void error(spdlog::format_string_t<Args...> fmt, Args&&... args) { get().error(fmt, std::forward<Args>(args)...); }
template <typename... Args>
void warn(spdlog::format_string_t<Args...> fmt, Args&&... args) { get().warn(fmt, std::forward<Args>(args)...); }
template <typename... Args>
void info(spdlog::format_string_t<Args...> fmt, Args&&... args) { get().info(fmt, std::forward<Args>(args)...); }
template <typename... Args>
void debug(spdlog::format_string_t<Args...> fmt, Args&&... args) { get().debug(fmt, std::forward<Args>(args)...); }
template <typename... Args>
void trace(spdlog::format_string_t<Args...> fmt, Args&&... args) { get().trace(fmt, std::forward<Args>(args)...); }

}  // namespace rcoll::log
