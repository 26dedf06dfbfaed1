// The transport interface: non-blocking, tagged, point-to-point messages
// between the ranks of one job. The collectives are written against this
// interface only; tcp/ and rdma/ (and inproc/ for ranks as threads) implement it.
//
// Contract (checked by tests/unit/transport_contract_test.cpp for every backend):
// - isend/irecv never block. Buffers stay owned by the caller and must stay
//   valid and untouched until the request is no longer pending.
// - Messages from one peer with one tag match receives in posting order;
//   different tags and peers are independent.
// - A receive matches a message of at most its capacity; a longer message
//   fails the receive with a TruncationError (an IoError, truncation.hpp)
//   and is discarded; the sender's send completes and the connection stays
//   usable.
// - Connections are made on first use, only to the peers actually used.
// - A peer that fails (closed connection, error completion) fails every
//   pending request on that peer with an IoError naming the peer's rank.
// - Progress happens only inside progress() and wait_for_activity(), on the
//   caller's thread: a transport starts no thread of its own. Not
//   thread-safe, except wake(); one thread drives one transport (a
//   communicator's progress thread, when it has one: comm/progress_thread.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/peer_endpoint.hpp"
#include "store/store.hpp"
#include "transport/request.hpp"

namespace rcoll::transport {

// What a backend can do; algorithms read flags, nothing throws "not implemented".
struct Capabilities {
  bool zero_copy_send = false;      // payload leaves from the user buffer, no staging copy
  bool zero_copy_recv = false;      // a message for a posted receive lands in the user buffer
  bool remote_write = false;        // one-sided writes (RDMA)
  std::size_t eager_limit = 0;      // messages larger than this use rendezvous
  std::size_t preferred_segment = 0;  // pipeline segment that keeps the link busy
};

class Transport {
 public:
  virtual ~Transport() = default;

  virtual std::string_view name() const = 0;
  virtual const Capabilities& capabilities() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // This rank's endpoint (e.g. listening port), published through the bootstrap.
  virtual std::string local_endpoint() const = 0;
  // Every rank's endpoint, index = rank. Called once, before any isend/irecv.
  virtual void set_peer_endpoints(std::vector<PeerEndpoint> endpoints) = 0;
  // The job's store, for backends that exchange per-connection data after
  // the join (RDMA queue pairs). Called before set_peer_endpoints; the
  // store outlives the transport. Default: not needed.
  virtual void attach_store(store::Store& /*store*/) {}

  virtual RequestPtr isend(int peer, Tag tag, const void* buf, std::size_t bytes) = 0;
  virtual RequestPtr irecv(int peer, Tag tag, void* buf, std::size_t capacity) = 0;
  // Withdraws a pending request: the transport will not touch its buffer
  // again. Used when a wait gives up (timeout, failure of another request).
  virtual void cancel(Request& request) = 0;

  // The rank, in this transport's numbering, of `request_peer`, a request's
  // peer(): a request carries the numbering of the transport that made it,
  // which for a sub-transport (sub_transport.hpp) is its base's. -1 for a
  // rank that is not one of this transport's.
  virtual int own_rank(int request_peer) const { return request_peer; }

  // Advances every in-flight operation without blocking; true if anything moved.
  virtual bool progress() = 0;
  // Sleeps until the transport may have work (a socket readable or
  // writable, a completion) or `max` passes. Never sleeps past `max`.
  virtual void wait_for_activity(std::chrono::microseconds max) = 0;
  // Thread-safe, never blocks: makes the driving thread's wait_for_activity()
  // under way, or else its next one, return soon (a progress thread has
  // new work). The only call another thread may make.
  virtual void wake() = 0;
};

}  // namespace rcoll::transport
