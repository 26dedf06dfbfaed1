// The bootstrap over a key-value store (store/store.hpp), for communicators
// built on a store of the caller's (Comm::create(options, store)): no rank
// service, no port of rcoll's own.
//
// - Joining: each rank sets "member/<rank>" to its blob, then reads every
//   other rank's (the join waits for all of them, up to the deadline).
//   members()[r].address is empty: a store sees no connection, so a rank's
//   blob carries the address peers reach it at.
// - barrier() number k: each rank sets "barrier/<k>/<rank>" and waits for
//   every rank's key.
// - Leaving: destroying a rank's StoreBootstrap sets departed(rank), as
//   the TCP service does when a rank's connection closes. A rank that dies
//   sets nothing: its peers learn of it from the transport, or at their
//   timeout.
// - The store operations pass through; a set under the departed prefix is
//   an InvalidArgument (the prefix is the bootstrap's).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.hpp"

namespace rcoll::bootstrap {

class StoreBootstrap final : public Bootstrap {
 public:
  // Joins as `rank` of `size` through `store` (which outlives this object).
  StoreBootstrap(std::unique_ptr<store::Store> store, int rank, int size, const std::string& blob, Deadline deadline);
  // With the members known already (a sub-communicator's, from its
  // parent): no join.
  StoreBootstrap(std::unique_ptr<store::Store> store, int rank, std::vector<PeerEndpoint> members);
  ~StoreBootstrap() override;
  StoreBootstrap(const StoreBootstrap&) = delete;
  StoreBootstrap& operator=(const StoreBootstrap&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::vector<PeerEndpoint>& members() const override { return members_; }
  void barrier(Deadline deadline) override;

  void set(const std::string& key, const std::string& value, Deadline deadline) override;
  std::string get(const std::string& key, Deadline deadline) override { return store_->get(key, deadline); }
  std::optional<std::string> try_get(const std::string& key) override { return store_->try_get(key); }

 private:
  // Every rank's value of key_of(rank); TimeoutError names the ranks whose
  // key was missing at the deadline.
  std::vector<std::string> collect(const std::function<std::string(int)>& key_of, const std::string& what,
                                   Deadline deadline);

  std::unique_ptr<store::Store> store_;
  int rank_;
  int size_;
  std::vector<PeerEndpoint> members_;
  std::uint64_t barriers_ = 0;
};

}  // namespace rcoll::bootstrap
