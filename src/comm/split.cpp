// Sub-communicators (Comm::split, Comm::dup): a new communicator over some
// ranks of this one, on the same connections.
//
// - One allgather of (color, key, next free id) over the parent is the
//   whole cost of a split: no service, no calibration, no new connection.
// - The id: the largest "next free id" of the parent's ranks, so that no
//   member uses it already; every rank then moves its own past it. Ranks of
//   different colors share the id but never a rank, so never a message.
//   The sub-transport adds the id to every tag (tags.hpp).
// - The new communicator shares the first communicator's transport and
//   store (its keys under keys::sub_communicator), its link model (the
//   plan is made for its own size and layout, once per size and layout),
//   and its call guard.
#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "bootstrap/store_bootstrap.hpp"
#include "comm/comm_impl.hpp"
#include "comm/rank_card.hpp"
#include "comm/validate.hpp"
#include "diagnostics/status_report.hpp"
#include "rcoll/errors.hpp"
#include "rcoll/store.hpp"
#include "store/keys.hpp"
#include "store/prefix_store.hpp"
#include "transport/sub_transport.hpp"

namespace rcoll::comm {

CommImpl::CommImpl(CommImpl& parent, const SubSpec& spec)
    : options_(parent.options_),
      server_(parent.server_),
      root_bootstrap_(parent.root_bootstrap_ ? parent.root_bootstrap_ : parent.bootstrap_),
      root_transport_(parent.root_transport_ ? parent.root_transport_ : parent.transport_),
      root_ranks_(spec.root_ranks),
      state_(std::make_shared<diagnostics::CallState>(spec.rank)),
      call_guard_(parent.call_guard_),
      family_(parent.family_),
      progress_(parent.progress_) {
  options_.rank = spec.rank;
  options_.size = static_cast<int>(spec.root_ranks.size());
  transport_ =
      std::make_shared<transport::SubTransport>(root_transport_, root_ranks_, spec.rank, comm_id_bits(spec.id));
  transport_name_ = parent.transport_name_;
  std::vector<PeerEndpoint> members;
  for (int root_rank : root_ranks_)
    members.push_back(root_bootstrap_->members().at(static_cast<std::size_t>(root_rank)));
  auto part = std::make_unique<store::PrefixStore>(root_bootstrap_, store::keys::sub_communicator(spec.id, spec.color));
  bootstrap_ = std::make_shared<bootstrap::StoreBootstrap>(std::move(part), spec.rank, std::move(members));
  layout_ = comm::host_layout(read_cards(bootstrap_->members(), spec.rank), spec.rank);
  spin_ = parent.spin_;
  link_model_ = parent.link_model_;
  diagnosis_.emplace(*bootstrap_, options_.rank, options_.size);
  failures_.emplace(*bootstrap_, options_.rank, options_.size);
  diagnostics::status::track(state_);
  make_plan();
}

namespace {

// Every member sees the same numbers, so every member throws alike.
void check_id_left(int rank, std::uint64_t id, const char* call) {
  if (id > max_comm_id)
    throw ResourceError("rank " + std::to_string(rank) + ": " + call + ": no communicator id left (" +
                        std::to_string(max_comm_id) + " communicators were made from the job's first one)");
}

// create_group's keys in the caller's store: each member's next free id.
std::string next_id_key(std::size_t position) { return "rcoll/create_group/next_id/" + std::to_string(position); }

std::uint64_t parse_id(int rank, const std::string& key, const std::string& value) {
  std::size_t used = 0;
  std::uint64_t id = 0;
  try {
    id = std::stoull(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size())
    throw InvalidArgument("rank " + std::to_string(rank) + ": create_group: the store holds '" + value + "' at " + key +
                          ", not a communicator id: is the store shared with another call?");
  return id;
}

}  // namespace

std::unique_ptr<CommImpl> CommImpl::split(int color, int key, Timeout timeout) {
  const std::array<std::int64_t, 3> mine{color, key, static_cast<std::int64_t>(family_->next_comm_id)};
  std::vector<std::int64_t> all(3 * static_cast<std::size_t>(size()));
  allgather(mine.data(), all.data(), mine.size(), DataType::int64, timeout);
  auto entry = [&](int r, int field) { return all[3 * static_cast<std::size_t>(r) + static_cast<std::size_t>(field)]; };
  std::uint64_t id = 0;
  for (int r = 0; r < size(); ++r) id = std::max(id, static_cast<std::uint64_t>(entry(r, 2)));
  check_id_left(rank(), id, "split");
  family_->next_comm_id = id + 1;
  if (color < 0) return nullptr;
  std::vector<int> members;
  for (int r = 0; r < size(); ++r)
    if (entry(r, 0) == color) members.push_back(r);
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) { return entry(a, 1) < entry(b, 1); });
  SubSpec spec;
  spec.id = id;
  spec.color = color;
  spec.rank = static_cast<int>(std::find(members.begin(), members.end(), rank()) - members.begin());
  for (int member : members) spec.root_ranks.push_back(root_rank(member));
  return std::make_unique<CommImpl>(*this, spec);
}

// The id: as split's, the largest "next free id" of the members, each
// published in the caller's store. Ranks outside the group never see it,
// so groups that share no rank may get one id (as split's colors do); the
// keys of the new communicator go under (id, -1 - its lowest rank here),
// which no split color (>= 0) nor a group with the same id (no shared
// rank) uses.
std::unique_ptr<CommImpl> CommImpl::create_group(std::span<const int> ranks, rcoll::Store& store, Timeout timeout) {
  check_timeout(rank(), "create_group", timeout);
  const int position = group_position(ranks);
  const Deadline deadline = Deadline::after(timeout.count() > 0 ? timeout : options_.timeout);
  store.set(next_id_key(static_cast<std::size_t>(position)), std::to_string(family_->next_comm_id), deadline.at());
  std::uint64_t id = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string key = next_id_key(i);
    id = std::max(id, parse_id(rank(), key, store.get(key, deadline.at())));
  }
  check_id_left(rank(), id, "create_group");
  family_->next_comm_id = id + 1;
  SubSpec spec;
  spec.id = id;
  spec.color = -1 - *std::min_element(ranks.begin(), ranks.end());
  spec.rank = position;
  for (int member : ranks) spec.root_ranks.push_back(root_rank(member));
  return std::make_unique<CommImpl>(*this, spec);
}

int CommImpl::group_position(std::span<const int> ranks) const {
  std::vector<bool> seen(static_cast<std::size_t>(size()), false);
  for (int r : ranks) {
    check_peer(rank(), size(), "create_group", "listed rank", r);
    if (seen[static_cast<std::size_t>(r)])
      throw_invalid(rank(), "create_group", "rank " + std::to_string(r) + " is listed twice");
    seen[static_cast<std::size_t>(r)] = true;
  }
  auto found = std::find(ranks.begin(), ranks.end(), rank());
  if (found == ranks.end())
    throw_invalid(rank(), "create_group", "this rank is not among the listed ranks; only members call create_group");
  return static_cast<int>(found - ranks.begin());
}

}  // namespace rcoll::comm
