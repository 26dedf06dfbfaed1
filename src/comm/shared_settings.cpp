#include "comm/shared_settings.hpp"

#include <map>
#include <sstream>
#include <string_view>

#include "diagnostics/rank_list.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::comm {
namespace {

// What sets each setting, for the error message.
std::string_view source_of(std::string_view name) {
  static const std::map<std::string_view, std::string_view> sources{
      {"transport", "RCOLL_TRANSPORT, and whether RDMA is usable on the rank's host"},
      {"eager_limit", "the transport's configuration, e.g. RCOLL_IB_EAGER_LIMIT"},
      {"preferred_segment", "the transport"},
      {"allreduce", "RCOLL_ALLREDUCE_ALGO"},
      {"bcast", "RCOLL_BCAST_ALGO"},
      {"reduce", "RCOLL_REDUCE_ALGO"},
      {"allgather", "RCOLL_ALLGATHER_ALGO"},
      {"reduce_scatter", "RCOLL_REDUCE_SCATTER_ALGO"},
      {"alltoall", "RCOLL_ALLTOALL_ALGO"},
      {"gather", "RCOLL_GATHER_ALGO"},
      {"scatter", "RCOLL_SCATTER_ALGO"},
      {"segment", "RCOLL_SEGMENT_BYTES"},
      {"calibrate", "RCOLL_CALIBRATE"},
      {"check", "RCOLL_CHECK"},
  };
  auto found = sources.find(name);
  return found == sources.end() ? std::string_view("the rank's options") : found->second;
}

std::map<std::string, std::string> parse(const std::string& settings) {
  std::map<std::string, std::string> values;
  std::istringstream in(settings);
  std::string pair;
  while (in >> pair) {
    const std::size_t eq = pair.find('=');
    values[pair.substr(0, eq)] = eq == std::string::npos ? "" : pair.substr(eq + 1);
  }
  return values;
}

// "allreduce (RCOLL_ALLREDUCE_ALGO) is 'ring' on ranks 0 and 1, 'auto' on rank 2"
std::string describe_difference(const std::string& name, const std::map<std::string, std::vector<int>>& holders) {
  std::string text = name + " (" + std::string(source_of(name)) + ") is ";
  bool first = true;
  for (const auto& [value, ranks] : holders) {
    text += (first ? "'" : ", '") + value + "' on " + diagnostics::name_ranks(ranks);
    first = false;
  }
  return text;
}

}  // namespace

std::string shared_settings(const Options& options, const transport::Transport& transport) {
  const transport::Capabilities& caps = transport.capabilities();
  std::ostringstream out;
  out << "transport=" << transport.name() << " eager_limit=" << caps.eager_limit
      << " preferred_segment=" << caps.preferred_segment << " allreduce=" << to_string(options.allreduce_algo)
      << " bcast=" << to_string(options.bcast_algo) << " reduce=" << to_string(options.reduce_algo)
      << " allgather=" << to_string(options.allgather_algo)
      << " reduce_scatter=" << to_string(options.reduce_scatter_algo)
      << " alltoall=" << to_string(options.alltoall_algo) << " gather=" << to_string(options.gather_algo)
      << " scatter=" << to_string(options.scatter_algo) << " segment=" << options.segment_bytes
      << " calibrate=" << options.calibrate << " check=" << options.check;
  return out.str();
}

void check_same_settings(const std::vector<RankCard>& cards, int self) {
  std::map<std::string, std::map<std::string, std::vector<int>>> holders;  // name -> value -> ranks
  for (std::size_t r = 0; r < cards.size(); ++r)
    for (const auto& [name, value] : parse(cards[r].settings)) holders[name][value].push_back(static_cast<int>(r));
  std::string differences;
  for (const auto& [name, by_value] : holders) {
    std::size_t ranks = 0;
    for (const auto& [value, list] : by_value) ranks += list.size();
    if (by_value.size() == 1 && ranks == cards.size()) continue;
    differences += (differences.empty() ? "" : "; ") + describe_difference(name, by_value);
  }
  if (!differences.empty())
    throw InvalidArgument("rank " + std::to_string(self) +
                          ": the ranks were started with settings that every rank must share: " + differences);
}

}  // namespace rcoll::comm
