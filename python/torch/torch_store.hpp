// rcoll's store interface (include/rcoll/store.hpp) over the c10d::Store
// that torch.distributed hands a backend (torchrun's TCPStore, a
// FileStore, ...), usually a PrefixStore of its group: the backend's
// communicators join through it, so no rcoll service is started.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <optional>
#include <string>

#include "rcoll/store.hpp"

namespace rcoll::torch_backend {

class TorchStore final : public rcoll::Store {
 public:
  // `rank` names this rank in the errors.
  TorchStore(c10::intrusive_ptr<c10d::Store> store, int rank);

  // Write-once through compareSet with an empty expected value: the key is
  // written only if absent, and what it holds comes back either way. (A
  // key that holds an empty value would be overwritten: rcoll's barrier
  // keys hold one, and are written once each, by one rank.)
  void set(const std::string& key, const std::string& value, Clock::time_point deadline) override;
  // c10d's wait() with the time left, then get().
  std::string get(const std::string& key, Clock::time_point deadline) override;
  std::optional<std::string> try_get(const std::string& key) override;

 private:
  c10::intrusive_ptr<c10d::Store> store_;
  int rank_;
};

}  // namespace rcoll::torch_backend
