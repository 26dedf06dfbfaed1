// Small pieces of the benchmarks' reports.
#pragma once

#include <string>

namespace rcoll::bench {

// `text` as a JSON string literal, quotes included.
std::string json_string(const std::string& text);

// This machine's host name, "unknown" if it cannot be read.
std::string host_name();

}  // namespace rcoll::bench
