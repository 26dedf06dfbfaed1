// A rank's side of the bootstrap handshake (proofs.hpp): connect, answer
// the server's CHALLENGE with a JOIN that proves the job token, and accept
// the server only once its ACCEPTED proves the token too. Nothing the
// server says before that proof is trusted beyond "refused"; the token
// itself is never sent.
//
// A connection the server closes or resets before its proof (it evicts
// unauthenticated connections under a flood, or was not quite up) is
// retried on a new connection with exponential backoff (20 ms doubling to
// 1 s) until the deadline.
//
// Errors: InvalidArgument "wrong job token (RCOLL_JOB_TOKEN differs from
// the service's)" when the server refused the proof; InvalidArgument with
// the server's reason for other refusals before the proof (version
// mismatch); IoError "could not prove it knows the job token: another
// process may be listening on that port" for a server that answers without
// a right proof; TimeoutError / IoError as ClientChannel.
#pragma once

#include <netinet/in.h>

#include <cstdint>

#include "bootstrap/client_channel.hpp"
#include "bootstrap/tcp_client.hpp"

namespace rcoll::bootstrap {

// The timeout the server is told for a wait: a little shorter than the
// client's, so that the server's answer (which names the late ranks)
// arrives before the client gives up on its own.
std::uint32_t server_timeout_ms(Deadline deadline);

// A channel on which the JOIN of `request` was sent and the server proved
// the token; the next frame is the server's answer to the join.
ClientChannel authenticated_join(const JoinRequest& request, const sockaddr_in& server, Deadline deadline);

}  // namespace rcoll::bootstrap
