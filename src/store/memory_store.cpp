// rcoll::InMemoryStore (include/rcoll/store.hpp): a map under a mutex; get()
// sleeps on a condition variable until its key is set or its deadline.
#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>

#include "rcoll/errors.hpp"
#include "rcoll/store.hpp"

namespace rcoll {

struct InMemoryStore::State {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::string> values;
};

InMemoryStore::InMemoryStore() : state_(std::make_unique<State>()) {}
InMemoryStore::~InMemoryStore() = default;

void InMemoryStore::set(const std::string& key, const std::string& value, Clock::time_point) {
  {
    std::lock_guard lock(state_->mutex);
    auto [it, inserted] = state_->values.emplace(key, value);
    if (!inserted && it->second != value)
      throw InvalidArgument("store: key '" + key + "' is set already, to another value (keys are write-once)");
  }
  state_->changed.notify_all();
}

std::string InMemoryStore::get(const std::string& key, Clock::time_point deadline) {
  std::unique_lock lock(state_->mutex);
  // Sleeps a second at most at a time: a deadline of time_point::max()
  // would overflow the condition variable's clock conversion.
  auto it = state_->values.find(key);
  for (; it == state_->values.end(); it = state_->values.find(key)) {
    const auto now = Clock::now();
    if (now >= deadline) throw TimeoutError("store: key '" + key + "' was not set before the deadline");
    state_->changed.wait_for(lock, std::min<Clock::duration>(deadline - now, std::chrono::seconds(1)));
  }
  return it->second;
}

std::optional<std::string> InMemoryStore::try_get(const std::string& key) {
  std::lock_guard lock(state_->mutex);
  auto it = state_->values.find(key);
  if (it == state_->values.end()) return std::nullopt;
  return it->second;
}

}  // namespace rcoll
