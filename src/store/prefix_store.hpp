// A part of another store: every key gets `prefix` in front. A
// sub-communicator's keys (diagnostics, failures) live in its own part of
// the job's store, so that its ranks and call numbers never meet its
// parent's. Shares ownership of the store it is part of.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "store/store.hpp"

namespace rcoll::store {

class PrefixStore final : public Store {
 public:
  PrefixStore(std::shared_ptr<Store> store, std::string prefix)
      : store_(std::move(store)), prefix_(std::move(prefix)) {}

  void set(const std::string& key, const std::string& value, Deadline deadline) override {
    store_->set(prefix_ + key, value, deadline);
  }
  std::string get(const std::string& key, Deadline deadline) override { return store_->get(prefix_ + key, deadline); }
  std::optional<std::string> try_get(const std::string& key) override { return store_->try_get(prefix_ + key); }

 private:
  std::shared_ptr<Store> store_;
  std::string prefix_;
};

}  // namespace rcoll::store
