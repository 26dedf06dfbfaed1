// Names of the steps a schedule waits in, for TimeoutError and IoError:
// "<call label>: allreduce ring reduce-scatter step 3/7".
#pragma once

#include <spdlog/fmt/fmt.h>

#include <string>

#include "collectives/collectives.hpp"

namespace rcoll::collectives {

template <typename... Args>
std::string step_label(const Context& ctx, fmt::format_string<Args...> format, Args&&... args) {
  std::string label(ctx.label);
  if (!label.empty()) label += ": ";
  fmt::format_to(std::back_inserter(label), format, std::forward<Args>(args)...);
  return label;
}

}  // namespace rcoll::collectives
