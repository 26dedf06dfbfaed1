// The bootstrap handshake's proofs of the job token (docs/PROTOCOLS.md,
// "Bootstrap rank service"; SECURITY.md). On every connection:
//
//   server -> client  CHALLENGE  server nonce Ns (fresh per connection)
//   client -> server  JOIN       client nonce Nc, client_proof, fields
//   server -> client  ACCEPTED   server_proof            (proof was right)
//                  or ERROR      wrong_token, "authentication failed"
//
// client_proof = HMAC(token, "rcoll/1 bootstrap client" | Ns | Nc | fields)
// server_proof = HMAC(token, "rcoll/1 bootstrap server" | Nc | Ns | fields)
// (common/auth.hpp, auth::prove), fields = wire::join_fields(JOIN). Each side
// answers the other's fresh nonce, so a recorded proof replays nowhere; the
// role labels differ, so a proof cannot be reflected back; the fields are
// covered, so a JOIN cannot be altered on the way without the token.
#pragma once

#include <string_view>

#include "bootstrap/messages.hpp"

namespace rcoll::bootstrap::proofs {

auth::Proof client_proof(std::string_view token, const auth::Nonce& server_nonce, const wire::JoinMessage& join);
auth::Proof server_proof(std::string_view token, const auth::Nonce& server_nonce, const wire::JoinMessage& join);

// Constant-time checks of the proofs above.
bool client_proof_ok(std::string_view token, const auth::Nonce& server_nonce, const wire::JoinMessage& join);
bool server_proof_ok(std::string_view token, const auth::Nonce& server_nonce, const wire::JoinMessage& join,
                     const auth::Proof& proof);

}  // namespace rcoll::bootstrap::proofs
