// Logging: one spdlog logger per process, every line prefixed with the rank.
// Level warn until set_level_from (the communicator sets RCOLL_LOG's:
// comm/environment.hpp; rcoll-bootstrapd its own).
#pragma once

#include <spdlog/spdlog.h>

#include <optional>
#include <string_view>

namespace rcoll::log {

// The library's logger; created on first use.
spdlog::logger& get();
// Sets the rank shown in the prefix ("[rcoll r3] ..."); -1 shows "?".
void set_rank(int rank);
// The level called `name`, in any case: off, error, warn, info, debug or
// trace (also spdlog's warning, err, critical); nullopt for any other name.
std::optional<spdlog::level::level_enum> parse_level(std::string_view name);
// Sets the level named by `value`, the value of environment variable
// `variable` (RCOLL_LOG). Another name sets warn and logs one warning (once
// per process and value) naming the variable, the value and the accepted
// names; it never throws: a log setting must not end a job.
void set_level_from(std::string_view variable, std::string_view value);

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
