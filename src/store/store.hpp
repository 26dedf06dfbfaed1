// The job's key-value store: a small exchange every rank of one job sees,
// beside the transport and independent of it. Ranks publish what the others
// need once (link calibration, RDMA queue-pair addresses) and what explains
// a failure (diagnostics). Every key rcoll uses is listed in store/keys.hpp.
//
// Implementations: the bootstrap (bootstrap/bootstrap.hpp: the TCP rank
// service's client and the in-memory rendezvous). A store of the user's
// (torchrun's, PMIx) is meant to plug in here too.
//
// Contract (checked by tests/unit/store_contract_test.cpp for every
// implementation):
// - Keys are write-once per job. set() of a key that already holds the same
//   value does nothing; with a different value it throws InvalidArgument
//   naming the key.
// - get() waits until the key exists and returns its value; at the deadline
//   it throws TimeoutError naming the key.
// - try_get() returns the value if the key exists now, else nullopt. It does
//   not wait for the key (it may still take one round trip to a service).
// - wait() returns once every key of `keys` exists; at the deadline it
//   throws TimeoutError naming a key that was missing.
// - Any operation throws IoError when the store's service is lost (its
//   connection broke, it shut down), and InvalidArgument for a key or value
//   over the implementation's limits.
// - A missed deadline or a refused set leaves the store usable.
// - One Store object serves one rank and is used by one thread; the
//   objects of different ranks may be used at the same time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/deadline.hpp"

namespace rcoll::store {

class Store {
 public:
  virtual ~Store() = default;

  virtual void set(const std::string& key, const std::string& value, Deadline deadline) = 0;
  virtual std::string get(const std::string& key, Deadline deadline) = 0;
  // Default: a get whose deadline has passed already. Implementations that
  // can answer without waiting at all override it.
  virtual std::optional<std::string> try_get(const std::string& key);
  // Default: a get of each key in turn, all bounded by `deadline`.
  virtual void wait(const std::vector<std::string>& keys, Deadline deadline);
};

}  // namespace rcoll::store
