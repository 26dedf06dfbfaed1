#include "diagnostics/call_check.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <vector>

#include "diagnostics/rank_list.hpp"
#include "rcoll/errors.hpp"
#include "rcoll/options.hpp"
#include "transport/wait.hpp"

namespace rcoll::diagnostics {
namespace {

// The wire form: fixed-width fields, host byte order (ranks of one job
// share an architecture, as for the payloads).
struct Fingerprint {
  std::uint8_t kind;
  std::uint8_t type;
  std::uint8_t op;
  std::uint8_t algorithm;
  std::int32_t root;
  std::uint64_t count;
  std::uint64_t sequence;
  std::uint64_t reserved;

  auto key() const { return std::tuple(kind, type, op, algorithm, root, count, sequence); }
  bool operator<(const Fingerprint& o) const { return key() < o.key(); }
};
static_assert(sizeof(Fingerprint) == 32);

Fingerprint fingerprint_of(const CallInfo& call, std::uint8_t algorithm) {
  Fingerprint f{};
  f.kind = static_cast<std::uint8_t>(call.kind);
  f.type = static_cast<std::uint8_t>(call.type);
  f.op = call.kind == CallKind::allreduce ? static_cast<std::uint8_t>(call.op) : 0;
  f.algorithm = algorithm;
  f.root = call.kind == CallKind::bcast ? call.peer : -1;
  f.count = call.count;
  f.sequence = call.sequence;
  return f;
}

CallInfo call_of(const Fingerprint& f) {
  CallInfo call;
  call.kind = static_cast<CallKind>(f.kind);
  call.type = static_cast<DataType>(f.type);
  call.op = static_cast<ReduceOp>(f.op);
  call.peer = f.root;
  call.count = f.count;
  call.sequence = f.sequence;
  return call;
}

std::string algorithm_name(const Fingerprint& f) {
  if (f.kind == static_cast<std::uint8_t>(CallKind::allreduce))
    return to_string(static_cast<AllreduceAlgo>(f.algorithm));
  if (f.kind == static_cast<std::uint8_t>(CallKind::bcast)) return to_string(static_cast<BcastAlgo>(f.algorithm));
  return "none";
}

std::string describe(const Fingerprint& f, bool with_algorithm) {
  std::string text = call_of(f).describe();
  if (with_algorithm) text += " with the " + algorithm_name(f) + " algorithm";
  return text;
}

// Rank 0 gathers every fingerprint and sends the table back to all.
std::vector<Fingerprint> exchange(transport::Transport& transport, const Fingerprint& mine, transport::Tag tag,
                                  Deadline deadline, const LazyText& label) {
  const int size = transport.size();
  std::vector<Fingerprint> table(static_cast<std::size_t>(size));
  const std::size_t table_bytes = table.size() * sizeof(Fingerprint);
  std::vector<transport::RequestPtr> requests;
  auto step = [&label] { return label.str() + ": RCOLL_CHECK fingerprint exchange"; };
  if (transport.rank() == 0) {
    table[0] = mine;
    for (int r = 1; r < size; ++r)
      requests.push_back(transport.irecv(r, tag, &table[static_cast<std::size_t>(r)],
                                         sizeof(Fingerprint)));
    transport::wait_all(transport, requests, deadline, step);
    requests.clear();
    for (int r = 1; r < size; ++r) requests.push_back(transport.isend(r, tag + 1, table.data(), table_bytes));
  } else {
    requests.push_back(transport.isend(0, tag, &mine, sizeof(Fingerprint)));
    requests.push_back(transport.irecv(0, tag + 1, table.data(), table_bytes));
  }
  transport::wait_all(transport, requests, deadline, step);
  return table;
}

[[noreturn]] void throw_mismatch(int rank, const std::vector<Fingerprint>& table) {
  std::map<Fingerprint, std::vector<int>> groups;
  for (std::size_t r = 0; r < table.size(); ++r) groups[table[r]].push_back(static_cast<int>(r));
  auto majority = groups.begin();
  for (auto it = groups.begin(); it != groups.end(); ++it)
    if (it->second.size() > majority->second.size() ||
        (it->second.size() == majority->second.size() && it->second.front() < majority->second.front()))
      majority = it;
  // Name the algorithm only when it is all that differs. (Sequence numbers
  // cannot differ here: the exchange's tags carry them.)
  std::map<std::string, int> plain;
  for (const auto& [f, ranks] : groups) plain[describe(f, false)] += 1;
  bool with_algorithm = plain.size() == 1;
  std::string text, wrong;
  std::vector<int> mismatched;
  for (const auto& [f, ranks] : groups) {
    if (f.key() == majority->first.key()) continue;
    text += (text.empty() ? "" : ", ") + name_ranks(ranks) + " called " + describe(f, with_algorithm);
    mismatched.insert(mismatched.end(), ranks.begin(), ranks.end());
  }
  std::sort(mismatched.begin(), mismatched.end());
  const auto& [f, ranks] = *majority;
  std::string head = std::string(to_string(static_cast<CallKind>(f.kind))) + " #" + std::to_string(f.sequence);
  throw MismatchError("rank " + std::to_string(rank) + ": " + head + ": " + text + " while " + name_ranks(ranks) +
                          " called " + describe(f, with_algorithm),
                      std::move(mismatched));
}

}  // namespace

void check_call(transport::Transport& transport, const CallInfo& call, std::uint8_t algorithm, transport::Tag tag,
                Deadline deadline, const LazyText& label) {
  if (transport.size() == 1) return;
  Fingerprint mine = fingerprint_of(call, algorithm);
  auto table = exchange(transport, mine, tag, deadline, label);
  for (const auto& f : table)
    if (std::memcmp(&f, &table.front(), sizeof f) != 0) throw_mismatch(transport.rank(), table);
}

}  // namespace rcoll::diagnostics
