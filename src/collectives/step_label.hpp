// Names of the steps a schedule waits in, for TimeoutError and IoError:
// "<call label>: allreduce ring reduce-scatter step 3/7", made only when read.
#pragma once

#include <spdlog/fmt/fmt.h>

#include <string>
#include <type_traits>

#include "collectives/collectives.hpp"

namespace rcoll::collectives {

// Returns a callable that formats the label when called; pass it where a
// LazyText is taken, so the text is only made for an error. The arguments
// are captured by value, `ctx` by reference.
template <typename... Args>
auto step_label(const Context& ctx, fmt::format_string<std::decay_t<Args>...> format, Args&&... args) {
  // The format string was checked at compile time here; the lambda formats at run time.
  fmt::string_view text = format;
  return [&ctx, text, ... args = std::decay_t<Args>(std::forward<Args>(args))]() -> std::string {
    std::string label = ctx.label.str();
    if (!label.empty()) label += ": ";
    fmt::vformat_to(std::back_inserter(label), text, fmt::make_format_args(args...));
    return label;
  };
}

}  // namespace rcoll::collectives
