// Proof of the job token without sending it (SECURITY.md, "How a
// connection proves the token").
//
// Both ends of a connection that must belong to one job (a rank and the
// bootstrap service, two ranks' TCP transports) prove knowledge of the job
// token by challenge-response: each sends a fresh random nonce, and each
// answers with HMAC-SHA-256, keyed by the token, over a label naming its
// role, both nonces and the message fields the proof vouches for. The token
// itself never travels, so a process that answers in the other side's place
// learns nothing it can replay or invert; the role label keeps a side from
// passing off the other side's proof (reflection) as its own.
//
// The primitives come from OpenSSL's libcrypto (Debian's libssl-dev): a
// reviewed, constant-time HMAC and the kernel-seeded CSPRNG, rather than a
// hand-written hash.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace rcoll::auth {

inline constexpr std::size_t nonce_bytes = 16;
inline constexpr std::size_t proof_bytes = 32;
using Nonce = std::array<std::uint8_t, nonce_bytes>;
using Proof = std::array<std::uint8_t, proof_bytes>;

// The roles, one label per direction of each handshake. A proof made for
// one role never verifies as another's.
inline constexpr std::string_view bootstrap_client = "rcoll/1 bootstrap client";
inline constexpr std::string_view bootstrap_server = "rcoll/1 bootstrap server";
inline constexpr std::string_view tcp_dialer = "rcoll/1 tcp dialer";
inline constexpr std::string_view tcp_acceptor = "rcoll/1 tcp acceptor";

// HMAC-SHA-256 (RFC 2104, FIPS 198-1) of `message` under `key`.
Proof hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> message);

// A nonce from the operating system's CSPRNG. Throws IoError if none can be
// had (never falls back to a guessable one).
Nonce fresh_nonce();

// The proof a side in `role` gives: HMAC(token, role | challenge | own |
// fields), each part length-prefixed so no two inputs share an encoding.
// `challenge` is the nonce the other side sent, `own` the nonce this side
// sent, `fields` the bytes of the message this proof vouches for (so they
// cannot be altered without the token).
Proof prove(std::string_view token, std::string_view role, const Nonce& challenge, const Nonce& own,
            std::span<const std::uint8_t> fields = {});

// Constant-time equality: the time taken does not depend on where two
// proofs differ.
bool same_proof(const Proof& a, const Proof& b) noexcept;

// A 64-bit name of the token for `purpose` (the first 8 bytes of
// HMAC(token, purpose)): tells jobs apart where no challenge fits (RDMA
// connection data) without revealing anything that helps guess the token.
std::uint64_t token_id(std::string_view token, std::string_view purpose);

// `value`'s bytes, for `fields`.
template <typename T>
std::span<const std::uint8_t> bytes_of(const T& value) noexcept {
  return {reinterpret_cast<const std::uint8_t*>(&value), sizeof(value)};
}

}  // namespace rcoll::auth
