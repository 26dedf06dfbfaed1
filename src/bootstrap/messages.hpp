// The bootstrap protocol's messages and their payload layouts (see
// docs/PROTOCOLS.md). encode() returns a whole frame (header + payload);
// decode_*() take a frame's payload, are pure, and throw
// wire::ProtocolError(malformed) on truncation, trailing bytes or a field
// over its limit. They check shape only; meaning (proofs, ranks) is checked
// by the server (proofs.hpp says how the proofs are made).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bootstrap/wire.hpp"
#include "common/auth.hpp"
#include "common/peer_endpoint.hpp"

namespace rcoll::bootstrap::wire {

// Field limits (bytes / counts).
// Longest job token either side accepts (it never travels; this bounds
// what the proofs hash).
inline constexpr std::size_t max_token = 4096;
inline constexpr std::size_t max_blob = 64 * 1024;
inline constexpr std::size_t max_address = 64;
inline constexpr std::size_t max_key = 1024;
inline constexpr std::size_t max_value = 512 * 1024;
inline constexpr std::size_t max_text = 4096;
inline constexpr std::uint32_t max_world_size = 1u << 20;

// The server's first frame on every connection: its fresh nonce.
struct ChallengeMessage {
  auth::Nonce nonce{};
};

// The client's first frame. The job token itself never travels: `proof`
// is proofs::client_proof(token, the CHALLENGE's nonce, *this), which
// vouches for every field below it.
struct JoinMessage {
  auth::Nonce nonce{};  // the client's own challenge to the server
  auth::Proof proof{};
  std::uint32_t size = 0;
  std::uint32_t rank = 0;
  // How long the client will wait for the job to form; the server answers
  // join_timeout (with the missing ranks) when it passes.
  std::uint32_t timeout_ms = 0;
  std::string blob;
};

// The server's answer to a JOIN whose proof was right, before anything
// else it says on that connection: proofs::server_proof(token, the
// CHALLENGE's nonce, the JOIN), so the client knows it talks to the job's
// service before it trusts a refusal or the members list.
struct AcceptedMessage {
  auth::Proof proof{};
};

struct MembersMessage {
  std::vector<PeerEndpoint> members;  // index = rank
};

struct ErrorMessage {
  ErrorCode code{};
  std::uint64_t request_id = 0;  // 0: about the join or the whole job
  std::vector<int> ranks;        // ranks the error is about (missing, lost)
  std::string text;              // human-readable reason
};

struct BarrierMessage {
  std::uint64_t request_id = 0;
  std::uint64_t generation = 0;  // 0 for this rank's first barrier, then 1, 2, ...
  std::uint32_t timeout_ms = 0;
};

// BARRIER_DONE and PUT_DONE.
struct DoneMessage {
  std::uint64_t request_id = 0;
};

struct PutMessage {
  std::uint64_t request_id = 0;
  std::string key;
  std::string value;
};

struct GetMessage {
  std::uint64_t request_id = 0;
  std::uint32_t timeout_ms = 0;
  std::string key;
};

struct ValueMessage {
  std::uint64_t request_id = 0;
  std::string value;
};

std::string encode(const ChallengeMessage& message);
std::string encode(const JoinMessage& message);
std::string encode(const AcceptedMessage& message);
std::string encode(const MembersMessage& message);
std::string encode(const ErrorMessage& message);
std::string encode(const BarrierMessage& message);
std::string encode(MessageType done_type, const DoneMessage& message);
std::string encode(const PutMessage& message);
std::string encode(const GetMessage& message);
std::string encode(const ValueMessage& message);

ChallengeMessage decode_challenge(std::string_view payload);
JoinMessage decode_join(std::string_view payload);
AcceptedMessage decode_accepted(std::string_view payload);
// The bytes of a JOIN that its proofs vouch for: size, rank, timeout and
// blob, laid out as in the frame.
std::string join_fields(const JoinMessage& message);
MembersMessage decode_members(std::string_view payload);
ErrorMessage decode_error(std::string_view payload);
BarrierMessage decode_barrier(std::string_view payload);
DoneMessage decode_done(std::string_view payload);
PutMessage decode_put(std::string_view payload);
GetMessage decode_get(std::string_view payload);
ValueMessage decode_value(std::string_view payload);

// Reserved keys: the server writes store::keys::departed(rank) (value: why,
// e.g. "rank 2 (10.0.0.2:41234) closed the connection") when a rank's
// connection closes after the job formed; a client's PUT of any key under
// store::keys::departed_prefix is refused (key_conflict), so the record
// cannot be forged or pre-empted.
bool is_reserved_key(std::string_view key) noexcept;

// "0, 3, 5" (for messages and logs).
std::string format_ranks(const std::vector<int>& ranks);

}  // namespace rcoll::bootstrap::wire
