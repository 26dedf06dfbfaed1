// Command-line helpers shared by the benchmarks: "--name value" and
// "--name=value" options driven by a table, byte sizes with K/M/G suffixes,
// and checked integers. Parsing is pure, so every rank parses the same argv
// to the same options before it joins the job.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rcoll::bench {

// A bad command line; a benchmark's main prints it with its usage text and
// exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "4096", "64K", "3M", "1G" (binary suffixes, case-insensitive).
// Throws UsageError for anything else, including overflow.
std::size_t parse_bytes(const std::string& text);

// "8,1000,3M": each item as parse_bytes.
std::vector<std::size_t> parse_size_list(const std::string& text);

// An integer >= min_value; `name` is the option, for the message.
int parse_int(const std::string& name, const std::string& text, int min_value);

// The --step-factor of a size sweep: a number > 1.
double parse_step_factor(const std::string& text);

// Splits "--name=value" into {"--name", "value"}; anything else is
// {arg, nullopt}.
std::pair<std::string, std::optional<std::string>> split_option(const std::string& arg);

template <typename Options>
struct OptionTable {
  // Options that take a value: the setter parses and stores it.
  std::map<std::string, std::function<void(Options&, const std::string&)>> valued;
  // Options without a value.
  std::map<std::string, std::function<void(Options&)>> flags;
};

// Applies every argument to `options` through `table`. Throws UsageError on
// an unknown option, a missing value, or a value given to a flag.
template <typename Options>
void parse_command_line(Options& options, const std::vector<std::string>& args, const OptionTable<Options>& table) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto [name, value] = split_option(args[i]);
    if (auto flag = table.flags.find(name); flag != table.flags.end()) {
      if (value) throw UsageError(name + " takes no value");
      flag->second(options);
      continue;
    }
    auto it = table.valued.find(name);
    if (it == table.valued.end()) throw UsageError("unknown option '" + args[i] + "'");
    if (!value) {
      if (i + 1 >= args.size()) throw UsageError(name + " needs a value");
      value = args[++i];
    }
    it->second(options, *value);
  }
}

}  // namespace rcoll::bench
