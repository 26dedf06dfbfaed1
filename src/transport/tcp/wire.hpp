// Wire formats of the TCP transport (docs/PROTOCOLS.md, "TCP transport").
//
// A connection opens with a three-message handshake (Challenge, Hello,
// Reply), then carries a stream of Frames. Layouts are little-endian and are
// sent as they sit in memory, so the host must be little-endian (checked at
// compile time); sizes and field offsets are static_asserted.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/auth.hpp"

namespace rcoll::transport::tcp {

static_assert(std::endian::native == std::endian::little, "the TCP wire format is sent as little-endian memory");

inline constexpr std::uint32_t hello_magic = 0x4c4f4352;  // "RCOL"
inline constexpr std::uint16_t frame_magic = 0x4652;      // "RF"
// 2: credited EAGER frames above the free eager limit, and CREDIT frames.
// 3: the handshake proves the job token both ways (challenge-response);
//    the token no longer travels.
inline constexpr std::uint8_t wire_version = 3;

// --- connection handshake -------------------------------------------------
//
// acceptor -> dialer   Challenge: the acceptor's nonce, at once on accept
// dialer -> acceptor   Hello: rank, size, the dialer's nonce and its proof
// acceptor -> dialer   Reply: accept or refuse, and the acceptor's proof
//
// The dialer proves the token with prove(token, tcp_dialer, acceptor nonce,
// dialer nonce, Hello up to its proof); the acceptor with prove(token,
// tcp_acceptor, dialer nonce, acceptor nonce, Reply up to its proof)
// (common/auth.hpp; handshake.hpp makes and checks both). An acceptor
// answers nothing to a Hello that does not prove the token: it closes the
// connection, so a stranger learns neither the rank nor the world size.
// Frames flow only after an accept the dialer has verified, so only the
// connection that survives ever carries one.

enum class HelloKind : std::uint8_t { hello = 1, accept = 2, refuse = 3, challenge = 4 };

// Why an acceptor refused an authenticated dialer (Reply::reason).
// `duplicate`: the pair already has, or is making, the connection that wins
// (tcp_connections.cpp); `peer_failed`: this rank's connection to the dialer
// already failed, and a failed peer stays failed. (1 and 2, a bad version
// and a bad token, were refusals up to version 2; now such a dialer gets no
// answer.)
enum class RefuseReason : std::uint8_t {
  none = 0, bad_size = 3, bad_rank = 4, duplicate = 5, peer_failed = 6,
};

struct Challenge {
  std::uint32_t magic = hello_magic;
  std::uint16_t version = wire_version;
  HelloKind kind = HelloKind::challenge;
  std::uint8_t reserved = 0;
  auth::Nonce nonce{};  // the acceptor's
};
static_assert(sizeof(Challenge) == 24 && offsetof(Challenge, nonce) == 8);

struct Hello {
  std::uint32_t magic = hello_magic;
  std::uint16_t version = wire_version;
  HelloKind kind = HelloKind::hello;
  std::uint8_t reserved = 0;
  std::int32_t rank = -1;  // the dialer's rank
  std::int32_t size = 0;   // the dialer's world size
  auth::Nonce nonce{};     // the dialer's
  auth::Proof proof{};     // over the bytes before it
};
static_assert(sizeof(Hello) == 64);
static_assert(offsetof(Hello, rank) == 8 && offsetof(Hello, nonce) == 16 && offsetof(Hello, proof) == 32);

struct Reply {
  std::uint32_t magic = hello_magic;
  std::uint16_t version = wire_version;
  HelloKind kind = HelloKind::accept;  // accept or refuse
  RefuseReason reason = RefuseReason::none;
  std::int32_t rank = -1;  // the acceptor's rank
  std::int32_t size = 0;   // the acceptor's world size
  auth::Proof proof{};     // over the bytes before it
};
static_assert(sizeof(Reply) == 48 && offsetof(Reply, proof) == 16);

std::string_view to_string(RefuseReason reason) noexcept;

// --- message frames ---------------------------------------------------------

// EAGER:  header + `length` payload bytes; the whole message. Up to the
//         free eager limit always; above it only within the sender's credit.
// RTS:    request to send `length` bytes under `id`; no payload.
// CTS:    clear to send message `id` (flag_discard: the receiver dropped it,
//         send nothing); no payload.
// DATA:   the `length` payload bytes of message `id` (flag_withdrawn: the
//         sender cancelled it; length is 0).
// CREDIT: the receiver of credited EAGER frames hands `length` bytes of its
//         credit window back to their sender; no payload.
enum class FrameType : std::uint8_t { eager = 1, rts = 2, cts = 3, data = 4, credit = 5 };

inline constexpr std::uint8_t flag_discard = 1;
inline constexpr std::uint8_t flag_withdrawn = 2;

struct FrameHeader {
  std::uint16_t magic = frame_magic;
  std::uint8_t version = wire_version;
  FrameType type = FrameType::eager;
  std::uint8_t flags = 0;
  std::uint8_t reserved[3] = {};
  std::uint64_t tag = 0;
  std::uint64_t length = 0;
  std::uint64_t id = 0;  // rendezvous message id, chosen by the sender; 0 for EAGER
};
static_assert(sizeof(FrameHeader) == 32);
static_assert(offsetof(FrameHeader, tag) == 8 && offsetof(FrameHeader, id) == 24);

std::string_view to_string(FrameType type) noexcept;

// --- protocol limits (both ends of a connection use the same) -------------

// At or below this a message always goes in one EAGER frame (an unexpected
// one is stored and copied once).
inline constexpr std::size_t free_eager_limit = 64 * 1024;

// The credit window of the connections of a job of `world_size` ranks: how
// many bytes of credited EAGER frames (larger than free_eager_limit) each
// rank may have outstanding towards each peer (credit_window.hpp).
std::size_t credit_window(int world_size) noexcept;

// The largest message a sender sends as a credited EAGER frame: a quarter
// window, at most 256 KiB (a sender's choice; the receiver takes any within
// the window).
std::size_t credited_eager_limit(int world_size) noexcept;

// True for frame types whose `length` payload bytes follow the header.
inline bool carries_payload(FrameType type) noexcept {
  return type == FrameType::eager || type == FrameType::data;
}

}  // namespace rcoll::transport::tcp
