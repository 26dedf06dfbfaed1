// Reading one variable of the environment module (environment.hpp) as a
// typed value; every malformed value throws InvalidArgument naming the
// variable. For the module's own files only.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace rcoll::comm::env {

// The variable's value; nullopt when unset or empty.
std::optional<std::string> text(const char* name);
// An integer in [low, high]; nullopt when unset.
std::optional<long long> integer(const char* name, long long low, long long high);
// A byte count with an optional K, M or G suffix; nullopt when unset.
std::optional<std::size_t> bytes(const char* name);
// 0 or 1; nullopt when unset.
std::optional<bool> zero_or_one(const char* name);
// 1, true, yes or on: true; anything else or unset: false.
bool flag(const char* name);

}  // namespace rcoll::comm::env
