#include "bootstrap/store_bootstrap.hpp"

#include "bootstrap/messages.hpp"
#include "common/log.hpp"
#include "rcoll/errors.hpp"
#include "store/keys.hpp"

namespace rcoll::bootstrap {
StoreBootstrap::StoreBootstrap(std::unique_ptr<store::Store> store, int rank, int size, const std::string& blob,
                               Deadline deadline)
    : store_(std::move(store)), rank_(rank), size_(size) {
  store_->set(store::keys::member(rank_), blob, deadline);
  for (std::string& member : collect(store::keys::member, "joining through the store", deadline))
    members_.push_back(PeerEndpoint{"", std::move(member)});
}

StoreBootstrap::StoreBootstrap(std::unique_ptr<store::Store> store, int rank, std::vector<PeerEndpoint> members)
    : store_(std::move(store)), rank_(rank), size_(static_cast<int>(members.size())), members_(std::move(members)) {}

StoreBootstrap::~StoreBootstrap() {
  try {
    store_->set(store::keys::departed(rank_), "rank " + std::to_string(rank_) + " left the job",
                Deadline::after(std::chrono::seconds(1)));
  } catch (const std::exception& e) {
    log::debug("rank {}: store bootstrap: cannot record this rank's departure: {}", rank_, e.what());
  }
}

void StoreBootstrap::barrier(Deadline deadline) {
  const std::string prefix = store::keys::barrier_prefix(barriers_++);
  auto entered = [&prefix](int rank) { return prefix + std::to_string(rank); };
  store_->set(entered(rank_), "", deadline);
  collect(entered, "bootstrap barrier " + std::to_string(barriers_ - 1), deadline);
}

void StoreBootstrap::set(const std::string& key, const std::string& value, Deadline deadline) {
  if (wire::is_reserved_key(key))
    throw InvalidArgument("rank " + std::to_string(rank_) + ": bootstrap key '" + key +
                          "' is reserved (departed ranks are recorded under it)");
  store_->set(key, value, deadline);
}

std::vector<std::string> StoreBootstrap::collect(const std::function<std::string(int)>& key_of,
                                                 const std::string& what, Deadline deadline) {
  std::vector<std::string> values(static_cast<std::size_t>(size_));
  std::vector<int> missing;
  for (int r = 0; r < size_; ++r) {
    try {
      values[static_cast<std::size_t>(r)] = store_->get(key_of(r), deadline);
    } catch (const TimeoutError&) {
      missing.push_back(r);  // the deadline has passed: the others are only looked at
    }
  }
  if (!missing.empty())
    throw TimeoutError("rank " + std::to_string(rank_) + ": " + what + " timed out waiting for ranks " +
                           wire::format_ranks(missing),
                       missing);
  return values;
}

}  // namespace rcoll::bootstrap
