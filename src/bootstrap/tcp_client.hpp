// A rank's side of the TCP bootstrap rank service (tcp_server.hpp).
//
// join_tcp() connects to the server (retrying while it is not up yet, until
// the deadline), proves the job token and has the server prove it
// (client_handshake.hpp; the token is never sent), and waits until the job
// formed. The returned
// Bootstrap keeps the connection for barrier/set/get; it is used by one
// thread (not thread-safe). Every wait is bounded by its Deadline.
//
// Errors:
// - InvalidArgument: a bad request (rank outside [0, size), blob, key or
//   value over its limit, unparsable address, unknown host), or the server
//   refused it; the message holds the server's reason (wrong job token,
//   world size mismatch, duplicate rank, version mismatch, ...). Also a set
//   of a key that already holds a different value.
// - IoError "could not prove it knows the job token": whatever answered at
//   the address is not the job's service (another process on that port).
// - TimeoutError: the deadline passed. When the server answered in time
//   (it is told each wait's timeout and answers a little before the
//   client's deadline), waiting_for() lists the ranks that never joined /
//   had not entered the barrier, and the message lists them too.
// - IoError: the connection broke, the server sent garbage, or a rank was
//   lost (peer() = the lost rank) before the job formed or during a barrier.
#pragma once

#include <memory>
#include <string>

#include "bootstrap/bootstrap.hpp"

namespace rcoll::bootstrap {

struct JoinRequest {
  std::string address;  // host:port of the bootstrap server (IPv4 or a name)
  std::string job_token;
  int rank = 0;
  int size = 1;
  std::string blob;  // this rank's transport endpoint
};

std::unique_ptr<Bootstrap> join_tcp(const JoinRequest& request, Deadline deadline);

}  // namespace rcoll::bootstrap
