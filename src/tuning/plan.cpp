#include "tuning/plan.hpp"

#include <spdlog/fmt/fmt.h>

#include <array>

namespace rcoll::tuning {
namespace {

template <typename Algorithm>
void append_ranges(std::string& out, const char* name, const SizeTable<Algorithm>& table) {
  const auto& ranges = table.ranges();
  fmt::format_to(std::back_inserter(out), "{}:\n", name);
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const auto& c = ranges[i].choice;
    const std::string to = i + 1 == ranges.size() ? std::string("and up") : human_bytes(ranges[i + 1].from);
    fmt::format_to(std::back_inserter(out), "  {:>10} .. {:<10} -> {}", human_bytes(ranges[i].from), to,
                   to_string(c.algorithm->id));
    if (c.depth == 0) out += ", whole messages\n";
    else fmt::format_to(std::back_inserter(out), ", segment {}, depth {}\n", human_bytes(c.segment), c.depth);
  }
}

std::string describe_inputs(const PlanInputs& in) {
  const LinkCost& l = in.model.link;
  std::string out = fmt::format(
      "plan on {} ranks over {} (link {}: alpha {:.3g} us, beta {:.3g} GB/s, gamma {:.3g} GB/s reduce; eager "
      "limit {}",
      in.model.size, in.transport.empty() ? std::string("?") : in.transport, in.link_source, l.alpha * 1e6,
      1e-9 / l.beta, 1e-9 / l.gamma, in.eager_limit > 0 ? human_bytes(in.eager_limit) : std::string("none"));
  if (in.model.shared_cores > 0) out += fmt::format("; all ranks share {} cores", in.model.shared_cores);
  if (in.overrides.segment > 0) out += "; segment " + human_bytes(in.overrides.segment) + " (RCOLL_SEGMENT_BYTES)";
  auto forced = [&out](const char* name, auto algo) {
    if (algo != decltype(algo)::automatic) out += std::string("; ") + name + " forced to " + to_string(algo);
  };
  const Overrides& o = in.overrides;
  forced("allreduce", o.allreduce);
  forced("bcast", o.bcast);
  forced("reduce", o.reduce);
  forced("allgather", o.allgather);
  forced("reduce_scatter", o.reduce_scatter);
  forced("alltoall", o.alltoall);
  forced("gather", o.gather);
  forced("scatter", o.scatter);
  return out + ")\n";
}

}  // namespace

std::string human_bytes(std::size_t bytes) {
  constexpr std::array units{"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < units.size()) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.4g} {}", value, units[unit]);
}

std::string Plan::describe() const {
  std::string out = describe_inputs(inputs_);
  for_each_table(tables_, [&out](const auto& collective, const auto& table) {
    append_ranges(out, collective.name, table);
  });
  out.pop_back();  // the last line's newline: the caller ends the text
  return out;
}

}  // namespace rcoll::tuning
