// The bootstrap rank service, as each rank sees it: joined once, it knows
// every rank's endpoint, offers a barrier, and is the job's key-value store
// (store/store.hpp). Ranks that leave the job after it formed are recorded
// in the store under store::keys::departed(rank); a set under that prefix is
// refused (InvalidArgument).
//
// Implementations: tcp_client.hpp (a real job, talking to the TCP rank
// service of tcp_server.hpp) and in_memory.hpp (ranks as threads in tests).
#pragma once

#include <cstdint>
#include <vector>

#include "common/deadline.hpp"
#include "common/peer_endpoint.hpp"
#include "store/store.hpp"

namespace rcoll::bootstrap {

// Wire protocol version; a frame with another version is refused.
// 2: the job token is proven by challenge-response, never sent (CHALLENGE,
// ACCEPTED; JOIN carries a nonce and a proof instead of the token).
inline constexpr std::uint16_t protocol_version = 2;

class Bootstrap : public store::Store {
 public:
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank's endpoint as published at join time (index = rank).
  virtual const std::vector<PeerEndpoint>& members() const = 0;

  // Returns when every rank has entered the barrier; TimeoutError names the
  // ranks that had not.
  virtual void barrier(Deadline deadline) = 0;
};

}  // namespace rcoll::bootstrap
