#include "comm/environment_values.hpp"

#include <charconv>
#include <cstdlib>

#include "common/byte_count.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::comm::env {
namespace {

[[noreturn]] void bad(const char* name, const std::string& value, const std::string& expected) {
  throw InvalidArgument(std::string(name) + "='" + value + "': expected " + expected);
}

}  // namespace

std::optional<std::string> text(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::optional<long long> integer(const char* name, long long low, long long high) {
  auto value = text(name);
  if (!value) return std::nullopt;
  long long number = 0;
  auto [end, error] = std::from_chars(value->data(), value->data() + value->size(), number);
  if (error != std::errc() || end != value->data() + value->size() || number < low || number > high)
    bad(name, *value, "an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "]");
  return number;
}

std::optional<std::size_t> bytes(const char* name) {
  auto value = text(name);
  if (!value) return std::nullopt;
  auto count = parse_byte_count(*value);
  if (!count) bad(name, *value, "a byte count such as 8192, 64K or 1M");
  return count;
}

std::optional<bool> zero_or_one(const char* name) {
  auto value = text(name);
  if (!value) return std::nullopt;
  if (*value != "0" && *value != "1") bad(name, *value, "0 or 1");
  return *value == "1";
}

bool flag(const char* name) {
  auto value = text(name);
  return value && (*value == "1" || *value == "true" || *value == "yes" || *value == "on");
}

}  // namespace rcoll::comm::env
