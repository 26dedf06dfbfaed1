// A rendezvous for ranks that are threads of one process (tests, the
// in-process transport). Behaves like the TCP rank service without sockets.
//
// Contract:
// - join(rank, blob, deadline) blocks until all `size` ranks joined, then
//   returns that rank's Bootstrap: members()[r] = {"127.0.0.1", blob of r}.
//   InvalidArgument for a rank outside [0, size) or a rank joined twice;
//   TimeoutError listing the ranks that never joined (waiting_for()).
// - barrier and the store (store/store.hpp) work across the threads.
// - Departures: destroying a rank's Bootstrap records
//   store::keys::departed(rank), as the TCP service does when a connection
//   closes; a set under that reserved prefix is an InvalidArgument.
// - Thread-safe. The returned Bootstrap objects share the rendezvous state
//   and may outlive the InMemoryRendezvous. Each Bootstrap is used by one
//   thread (its rank).
#pragma once

#include <memory>
#include <string>

#include "bootstrap/bootstrap.hpp"

namespace rcoll::bootstrap {

namespace detail {
struct InMemoryState;
}

class InMemoryRendezvous {
 public:
  explicit InMemoryRendezvous(int size);
  ~InMemoryRendezvous();
  InMemoryRendezvous(const InMemoryRendezvous&) = delete;
  InMemoryRendezvous& operator=(const InMemoryRendezvous&) = delete;

  std::unique_ptr<Bootstrap> join(int rank, std::string blob, Deadline deadline);

 private:
  std::shared_ptr<detail::InMemoryState> state_;
};

}  // namespace rcoll::bootstrap
