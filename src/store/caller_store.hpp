// The internal store interface (store.hpp) over a store of the caller's
// (rcoll::Store, include/rcoll/store.hpp): rcoll's keys go under "rcoll/",
// so that they never meet the caller's own.
#pragma once

#include <optional>
#include <string>

#include "rcoll/store.hpp"
#include "store/store.hpp"

namespace rcoll::store {

class CallerStore final : public Store {
 public:
  static constexpr char prefix[] = "rcoll/";

  // `store` outlives this object.
  explicit CallerStore(rcoll::Store& store) noexcept : store_(store) {}

  void set(const std::string& key, const std::string& value, Deadline deadline) override {
    store_.set(prefix + key, value, deadline.at());
  }
  std::string get(const std::string& key, Deadline deadline) override {
    return store_.get(prefix + key, deadline.at());
  }
  std::optional<std::string> try_get(const std::string& key) override { return store_.try_get(prefix + key); }

 private:
  rcoll::Store& store_;
};

}  // namespace rcoll::store
