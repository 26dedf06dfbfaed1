#include "bootstrap/proofs.hpp"

#include <string>

namespace rcoll::bootstrap::proofs {
namespace {

std::span<const std::uint8_t> bytes(const std::string& text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

}  // namespace

auth::Proof client_proof(std::string_view token, const auth::Nonce& server_nonce, const wire::JoinMessage& join) {
  return auth::prove(token, auth::bootstrap_client, server_nonce, join.nonce, bytes(wire::join_fields(join)));
}

auth::Proof server_proof(std::string_view token, const auth::Nonce& server_nonce, const wire::JoinMessage& join) {
  return auth::prove(token, auth::bootstrap_server, join.nonce, server_nonce, bytes(wire::join_fields(join)));
}

bool client_proof_ok(std::string_view token, const auth::Nonce& server_nonce, const wire::JoinMessage& join) {
  return auth::same_proof(join.proof, client_proof(token, server_nonce, join));
}

bool server_proof_ok(std::string_view token, const auth::Nonce& server_nonce, const wire::JoinMessage& join,
                     const auth::Proof& proof) {
  return auth::same_proof(proof, server_proof(token, server_nonce, join));
}

}  // namespace rcoll::bootstrap::proofs
