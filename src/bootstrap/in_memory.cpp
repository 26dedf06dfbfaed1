#include "bootstrap/in_memory.hpp"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>

#include "bootstrap/messages.hpp"
#include "rcoll/errors.hpp"
#include "store/keys.hpp"

namespace rcoll::bootstrap {
namespace detail {

struct InMemoryState {
  explicit InMemoryState(int world) : size(world), blobs(world), barriers_entered(world, 0) {}

  std::mutex mutex;
  std::condition_variable changed;
  const int size;
  std::vector<std::optional<std::string>> blobs;  // index = rank; set once joined
  int joined = 0;
  std::vector<std::uint64_t> barriers_entered;    // index = rank
  std::map<std::string, std::string> store;

  // Waits for `ready` under `lock` until `deadline`; false on timeout.
  // Sleeps in slices of at most a second, so Deadline::never() (the
  // clock's max) never reaches the condition variable's time conversion.
  template <typename Ready>
  bool wait(std::unique_lock<std::mutex>& lock, Deadline deadline, Ready ready) {
    while (!ready()) {
      if (deadline.expired()) return false;
      changed.wait_for(lock, deadline.remaining(std::chrono::milliseconds(1000)));
    }
    return true;
  }
};

namespace {

class InMemoryBootstrap final : public Bootstrap {
 public:
  InMemoryBootstrap(std::shared_ptr<InMemoryState> state, int rank, std::vector<PeerEndpoint> members)
      : state_(std::move(state)), rank_(rank), members_(std::move(members)) {}

  // Leaving the job, as a closed connection to the TCP service does:
  // record the departure for ranks still waiting on this one.
  ~InMemoryBootstrap() override {
    std::lock_guard lock(state_->mutex);
    state_->store.emplace(store::keys::departed(rank_), "rank " + std::to_string(rank_) + " closed its bootstrap");
    state_->changed.notify_all();
  }
  InMemoryBootstrap(const InMemoryBootstrap&) = delete;
  InMemoryBootstrap& operator=(const InMemoryBootstrap&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return state_->size; }
  const std::vector<PeerEndpoint>& members() const override { return members_; }

  void barrier(Deadline deadline) override {
    std::unique_lock lock(state_->mutex);
    std::uint64_t target = ++state_->barriers_entered[static_cast<std::size_t>(rank_)];
    state_->changed.notify_all();
    auto behind = [&] {
      std::vector<int> ranks;
      for (int r = 0; r < state_->size; ++r)
        if (state_->barriers_entered[static_cast<std::size_t>(r)] < target) ranks.push_back(r);
      return ranks;
    };
    if (!state_->wait(lock, deadline, [&] { return behind().empty(); })) {
      auto missing = behind();
      throw TimeoutError("rank " + std::to_string(rank_) + ": bootstrap barrier " + std::to_string(target - 1) +
                             " timed out waiting for ranks " + wire::format_ranks(missing),
                         missing);
    }
  }

  void set(const std::string& key, const std::string& value, Deadline) override {
    if (wire::is_reserved_key(key))
      throw InvalidArgument("rank " + std::to_string(rank_) + ": bootstrap key '" + key +
                            "' is reserved (the rendezvous records departed ranks under it)");
    std::lock_guard lock(state_->mutex);
    auto [it, inserted] = state_->store.emplace(key, value);
    if (!inserted && it->second != value)
      throw InvalidArgument("rank " + std::to_string(rank_) + ": bootstrap key '" + key +
                            "' already holds a different value (keys are write-once)");
    state_->changed.notify_all();
  }

  std::string get(const std::string& key, Deadline deadline) override {
    std::unique_lock lock(state_->mutex);
    if (!state_->wait(lock, deadline, [&] { return state_->store.count(key) != 0; }))
      throw TimeoutError("rank " + std::to_string(rank_) + ": bootstrap key '" + key +
                         "' was not published before the deadline");
    return state_->store.at(key);
  }

  std::optional<std::string> try_get(const std::string& key) override {
    std::lock_guard lock(state_->mutex);
    auto it = state_->store.find(key);
    if (it == state_->store.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::shared_ptr<InMemoryState> state_;
  int rank_;
  std::vector<PeerEndpoint> members_;
};

}  // namespace
}  // namespace detail

InMemoryRendezvous::InMemoryRendezvous(int size) {
  if (size < 1) throw InvalidArgument("in-memory rendezvous: world size " + std::to_string(size) + " must be >= 1");
  state_ = std::make_shared<detail::InMemoryState>(size);
}

InMemoryRendezvous::~InMemoryRendezvous() = default;

std::unique_ptr<Bootstrap> InMemoryRendezvous::join(int rank, std::string blob, Deadline deadline) {
  auto& state = *state_;
  if (rank < 0 || rank >= state.size)
    throw InvalidArgument("in-memory rendezvous: rank " + std::to_string(rank) + " out of range [0, " +
                          std::to_string(state.size) + ")");
  std::unique_lock lock(state.mutex);
  auto& slot = state.blobs[static_cast<std::size_t>(rank)];
  if (slot) throw InvalidArgument("in-memory rendezvous: rank " + std::to_string(rank) + " joined twice");
  slot = std::move(blob);
  ++state.joined;
  state.changed.notify_all();
  if (!state.wait(lock, deadline, [&] { return state.joined == state.size; })) {
    std::vector<int> missing;
    for (int r = 0; r < state.size; ++r)
      if (!state.blobs[static_cast<std::size_t>(r)]) missing.push_back(r);
    throw TimeoutError("rank " + std::to_string(rank) + ": bootstrap join timed out; ranks never joined: " +
                           wire::format_ranks(missing),
                       missing);
  }
  std::vector<PeerEndpoint> members;
  members.reserve(static_cast<std::size_t>(state.size));
  for (const auto& member_blob : state.blobs) members.push_back({"127.0.0.1", *member_blob});
  return std::make_unique<detail::InMemoryBootstrap>(state_, rank, std::move(members));
}

}  // namespace rcoll::bootstrap
