#include "common/args.hpp"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>

namespace rcoll::bench {

std::size_t parse_bytes(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr == text.data()) throw UsageError("bad size '" + text + "'");
  unsigned shift = 0;
  if (ptr != end) {
    switch (std::toupper(static_cast<unsigned char>(*ptr))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: throw UsageError("bad size suffix in '" + text + "' (expected K, M or G)");
    }
    if (ptr + 1 != end) throw UsageError("bad size '" + text + "'");
  }
  if (value > (std::numeric_limits<std::size_t>::max() >> shift))
    throw UsageError("size '" + text + "' is too large");
  return static_cast<std::size_t>(value) << shift;
}

std::vector<std::size_t> parse_size_list(const std::string& text) {
  std::vector<std::size_t> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    sizes.push_back(parse_bytes(text.substr(start, comma - start)));
    start = comma + 1;
  }
  return sizes;
}

int parse_int(const std::string& name, const std::string& text, int min_value) {
  int value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < min_value)
    throw UsageError(name + " needs an integer >= " + std::to_string(min_value) + ", got '" + text + "'");
  return value;
}

double parse_step_factor(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(value > 1.0))
    throw UsageError("--step-factor needs a number > 1, got '" + text + "'");
  return value;
}

std::pair<std::string, std::optional<std::string>> split_option(const std::string& arg) {
  if (auto eq = arg.find('='); eq != std::string::npos && arg.starts_with("--"))
    return {arg.substr(0, eq), arg.substr(eq + 1)};
  return {arg, std::nullopt};
}

}  // namespace rcoll::bench
