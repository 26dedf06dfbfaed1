// The internal store interface (store.hpp) over a store of the caller's
// (rcoll::Store, include/rcoll/store.hpp): rcoll's keys go under "rcoll/",
// so that they never meet the caller's own.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "rcoll/store.hpp"
#include "store/store.hpp"

namespace rcoll::store {

class CallerStore final : public Store {
 public:
  static constexpr char prefix[] = "rcoll/";

  // `store` outlives this object.
  explicit CallerStore(rcoll::Store& store) : store_(store), prefix_(prefix) {}
  // Owns `store` (with the communicator it serves: a store rcoll made
  // itself, such as torchrun's, comm/environment.hpp); the keys go under
  // `key_prefix`, which starts with "rcoll/".
  CallerStore(std::shared_ptr<rcoll::Store> store, std::string key_prefix)
      : owned_(std::move(store)), store_(*owned_), prefix_(std::move(key_prefix)) {}

  void set(const std::string& key, const std::string& value, Deadline deadline) override {
    store_.set(prefix_ + key, value, deadline.at());
  }
  std::string get(const std::string& key, Deadline deadline) override {
    return store_.get(prefix_ + key, deadline.at());
  }
  std::optional<std::string> try_get(const std::string& key) override { return store_.try_get(prefix_ + key); }

 private:
  std::shared_ptr<rcoll::Store> owned_;
  rcoll::Store& store_;
  std::string prefix_;
};

}  // namespace rcoll::store
