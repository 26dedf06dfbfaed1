// A transport for a sub-communicator (Comm::split, Comm::dup): some ranks
// of another transport (the base), renumbered 0..n-1, with `tag_bits`
// added to every tag so that its messages never match the base's own or
// another sub-transport's. It opens nothing: its messages go over the
// base's connections, made on first use as always.
//
// Requests are the base's, so request->peer() is a rank of the base;
// base_rank() and own_rank() translate. progress() and
// wait_for_activity() are the base's: driving either drives both. The base
// is shared: it lives as long as its last sub-transport or owner.
#pragma once

#include <memory>
#include <vector>

#include "transport/transport.hpp"

namespace rcoll::transport {

class SubTransport final : public Transport {
 public:
  // `members`: the base rank of each rank of this one (index = rank), all
  // different; `rank`: this process's index in `members`.
  SubTransport(std::shared_ptr<Transport> base, std::vector<int> members, int rank, Tag tag_bits);

  std::string_view name() const override { return base_->name(); }
  const Capabilities& capabilities() const override { return base_->capabilities(); }
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(members_.size()); }
  // Endpoints are the base's: a sub-transport is never joined on its own.
  std::string local_endpoint() const override { return base_->local_endpoint(); }
  void set_peer_endpoints(std::vector<PeerEndpoint> endpoints) override;

  RequestPtr isend(int peer, Tag tag, const void* buf, std::size_t bytes) override;
  RequestPtr irecv(int peer, Tag tag, void* buf, std::size_t capacity) override;
  void cancel(Request& request) override { base_->cancel(request); }
  bool progress() override { return base_->progress(); }
  void wait_for_activity(std::chrono::microseconds max) override { base_->wait_for_activity(max); }
  void wake() override { base_->wake(); }

  int base_rank(int rank) const { return members_.at(static_cast<std::size_t>(rank)); }
  // This transport's rank of base rank `base`; -1 if it is not a member.
  int own_rank(int base) const override;

 private:
  std::shared_ptr<Transport> base_;
  std::vector<int> members_;
  int rank_;
  Tag tag_bits_;
};

}  // namespace rcoll::transport
