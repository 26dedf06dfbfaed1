#include "diagnostics/call_check.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <vector>

#include <spdlog/fmt/fmt.h>

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
  std::uint64_t counts_hash;

  auto key() const { return std::tuple(kind, type, op, algorithm, root, count, counts_hash, sequence); }
  bool operator<(const Fingerprint& o) const { return key() < o.key(); }
};
static_assert(sizeof(Fingerprint) == 32);

Fingerprint fingerprint_of(const CallInfo& call, std::uint8_t algorithm) {
  Fingerprint f{};
  f.kind = static_cast<std::uint8_t>(call.kind);
  f.type = static_cast<std::uint8_t>(call.type);
  f.op = call.has_op() ? static_cast<std::uint8_t>(call.op) : 0;
  f.algorithm = algorithm;
  f.root = call.has_root() ? call.peer : -1;
  f.count = call.count;
  f.sequence = call.sequence;
  f.counts_hash = call.counts_hash;
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
  call.counts_hash = f.counts_hash;
  return call;
}

std::string algorithm_name(const Fingerprint& f) {
  if (f.kind == static_cast<std::uint8_t>(CallKind::allreduce))
    return to_string(static_cast<AllreduceAlgo>(f.algorithm));
  switch (static_cast<CallKind>(f.kind)) {
    case CallKind::bcast: return to_string(static_cast<BcastAlgo>(f.algorithm));
    case CallKind::reduce: return to_string(static_cast<ReduceAlgo>(f.algorithm));
    case CallKind::allgather:
    case CallKind::allgatherv: return to_string(static_cast<AllgatherAlgo>(f.algorithm));
    case CallKind::reduce_scatter:
    case CallKind::reduce_scatter_v: return to_string(static_cast<ReduceScatterAlgo>(f.algorithm));
    case CallKind::alltoall:
    case CallKind::alltoallv: return to_string(static_cast<AlltoallAlgo>(f.algorithm));
    case CallKind::gather:
    case CallKind::gatherv: return to_string(static_cast<GatherAlgo>(f.algorithm));
    case CallKind::scatter:
    case CallKind::scatterv: return to_string(static_cast<ScatterAlgo>(f.algorithm));
    default: return "none";
  }
}

std::string describe(const Fingerprint& f, bool with_algorithm) {
  std::string text = call_of(f).describe();
  // The v-variants: ranks that disagree only on counts or displacements
  // would otherwise read alike.
  if (f.counts_hash != 0) text += fmt::format(" with counts and displacements hashing to {:016x}", f.counts_hash);
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
