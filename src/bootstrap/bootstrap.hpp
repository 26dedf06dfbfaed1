// The bootstrap rank service, as each rank sees it: joined once, it knows
// every rank's endpoint and offers a barrier and a small key-value exchange.
//
// Implementations: tcp_client.hpp (a real job, talking to the TCP rank
// service of tcp_server.hpp) and in_memory.hpp (ranks as threads in tests).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/deadline.hpp"
#include "common/peer_endpoint.hpp"

namespace rcoll::bootstrap {

// Wire protocol version; a join with another version is refused.
inline constexpr std::uint16_t protocol_version = 1;

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank's endpoint as published at join time (index = rank).
  virtual const std::vector<PeerEndpoint>& members() const = 0;

  // Returns when every rank has entered the barrier; TimeoutError names the
  // ranks that had not.
  virtual void barrier(Deadline deadline) = 0;
  // Stores `value` under `key` for all ranks (keys are write-once per job).
  virtual void put(const std::string& key, const std::string& value, Deadline deadline) = 0;
  // Waits until `key` exists and returns its value; TimeoutError otherwise.
  virtual std::string get(const std::string& key, Deadline deadline) = 0;
  // The value of `key` if it exists now, else nullopt; does not wait for the
  // key to appear (it may still take one round trip to the service). For
  // handshakes driven from a progress loop (lazy RDMA connections).
  virtual std::optional<std::string> try_get(const std::string& key);
  // Why `rank` left the job, if it did: the service records a rank whose
  // connection closed after the job formed (a crash or a normal exit; the
  // reserved key "departed/<rank>", written only by the service). nullopt
  // while the rank is still in the job. One try_get: the same cost, and
  // the same errors. A rank that left may still have published keys
  // before it went: a caller waiting for one should look for it again.
  virtual std::optional<std::string> departure(int rank);
};

}  // namespace rcoll::bootstrap
