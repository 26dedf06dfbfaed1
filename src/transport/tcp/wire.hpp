// Wire formats of the TCP transport (docs/PROTOCOLS.md, "TCP transport").
//
// Two fixed-layout structures travel on a connection: one Hello each way
// when it opens, then a stream of Frames. Layouts are little-endian and are
// sent as they sit in memory, so the host must be little-endian (checked at
// compile time); sizes and field offsets are static_asserted.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rcoll::transport::tcp {

static_assert(std::endian::native == std::endian::little, "the TCP wire format is sent as little-endian memory");

inline constexpr std::uint32_t hello_magic = 0x4c4f4352;  // "RCOL"
inline constexpr std::uint16_t frame_magic = 0x4652;      // "RF"
// 2: credited EAGER frames above the free eager limit, and CREDIT frames.
inline constexpr std::uint8_t wire_version = 2;
inline constexpr std::uint32_t max_token_bytes = 4096;

// --- connection handshake -------------------------------------------------

enum class HelloKind : std::uint8_t { hello = 1, accept = 2, refuse = 3 };

// Why an acceptor refused a connection (sent back in Hello::reason).
// `duplicate`: the pair already has, or is making, the connection that wins
// (tcp_connections.cpp); `peer_failed`: this rank's connection to the dialer
// already failed, and a failed peer stays failed.
enum class RefuseReason : std::uint8_t {
  none = 0, bad_version, bad_token, bad_size, bad_rank, duplicate, peer_failed,
};

// The dialing rank (either rank of a pair) sends kind=hello followed by
// token_len bytes of the job token; the accepting rank answers kind=accept or
// kind=refuse with its own rank and token_len = 0. Frames flow only after the
// accept, so only the connection that survives ever carries one.
struct Hello {
  std::uint32_t magic = hello_magic;
  std::uint16_t version = wire_version;
  HelloKind kind = HelloKind::hello;
  RefuseReason reason = RefuseReason::none;
  std::int32_t rank = -1;       // sender's rank
  std::int32_t size = 0;        // sender's world size
  std::uint32_t token_len = 0;  // bytes of job token that follow (hello only)
  std::uint32_t reserved = 0;
};
static_assert(sizeof(Hello) == 24);
static_assert(offsetof(Hello, rank) == 8 && offsetof(Hello, token_len) == 16);

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
