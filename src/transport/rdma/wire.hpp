// Wire formats of the RDMA transport (docs/RDMA.md has the protocol):
// - ConnInfo: one side of a queue-pair connection, published through the
//   bootstrap key-value service under "rdma/<from>/<to>" (hex text).
// - CmPrivate: the same for the rdma_cm path, in the connect private data.
// - MsgHeader: the start of every SEND on a connection.
// Fixed layouts, little-endian (the only byte order we build for), versioned.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rcoll::transport::rdma {

static_assert(std::endian::native == std::endian::little, "the RDMA wire format is little-endian");

inline constexpr std::uint16_t wire_version = 1;
inline constexpr std::uint32_t conn_magic = 0x42494352;  // "RCIB"

struct ConnInfo {
  std::uint32_t magic = conn_magic;
  std::uint16_t version = wire_version;
  std::uint8_t mtu = 0;         // the writer's active MTU (enum ibv_mtu)
  std::uint8_t use_gid = 0;     // 1: address by GID (RoCE, routed IB)
  std::uint32_t rank = 0;       // the writer
  std::uint32_t peer = 0;       // the rank it is meant for
  std::uint32_t qpn = 0;
  std::uint32_t psn = 0;
  std::uint16_t lid = 0;
  std::uint16_t reserved0 = 0;
  std::uint32_t ring_slots = 0;  // receives posted for the reader: its initial credits
  std::uint32_t slot_bytes = 0;  // bytes per receive buffer (header + eager payload)
  std::uint32_t reserved1 = 0;
  std::uint8_t gid[16] = {};
  std::uint64_t token_hash = 0;  // hash of the job token
};
static_assert(sizeof(ConnInfo) == 64, "ConnInfo layout changed: bump wire_version");

// rdma_cm carries QPN, PSN, GID and MTU itself; REQ private data is limited
// to 56 bytes on InfiniBand.
struct CmPrivate {
  std::uint32_t magic = conn_magic;
  std::uint16_t version = wire_version;
  std::uint16_t flags = 0;        // cm_knock: "connect to me", not a connection
  std::uint32_t rank = 0;
  std::uint32_t peer = 0;
  std::uint32_t ring_slots = 0;
  std::uint32_t slot_bytes = 0;
  std::uint64_t token_hash = 0;
};
static_assert(sizeof(CmPrivate) == 32, "CmPrivate layout changed: bump wire_version");
inline constexpr std::uint16_t cm_knock = 1;

enum class MsgKind : std::uint8_t {
  eager = 1,       // tag, length; payload follows the header
  rts = 2,         // request to send: tag, length, send_id
  cts = 3,         // clear to send: send_id, recv_id, addr, rkey, length, flags
  credit = 4,      // only returns credits
  recv_abort = 5,  // receiver withdrew after CTS: send_id, recv_id
  send_abort = 6,  // sender withdrew or failed after CTS: recv_id (and why, in flags)
};

// cts flags
inline constexpr std::uint32_t cts_truncated = 1;  // the receive buffer is too small: drop the message
inline constexpr std::uint32_t cts_failed = 2;     // the receiver could not register its buffer
// send_abort flags
inline constexpr std::uint32_t abort_cancelled = 1;
inline constexpr std::uint32_t abort_failed = 2;

struct MsgHeader {
  std::uint8_t version = static_cast<std::uint8_t>(wire_version);
  MsgKind kind = MsgKind::credit;
  std::uint16_t credits = 0;     // receives the writer reposted for the reader since its last message
  std::uint32_t flags = 0;
  std::uint64_t tag = 0;
  std::uint64_t length = 0;      // eager: payload bytes; rts, cts: message bytes
  std::uint64_t addr = 0;        // cts: where to write
  std::uint32_t rkey = 0;        // cts
  std::uint32_t send_id = 0;
  std::uint32_t recv_id = 0;
  std::uint32_t reserved = 0;
};
static_assert(sizeof(MsgHeader) == 48, "MsgHeader layout changed: bump wire_version");

std::string_view kind_name(MsgKind kind) noexcept;

// The job's 64-bit name on RDMA connection data (auth::token_id): tells jobs
// apart where a challenge does not fit (rdma_cm private data, the
// connection info each rank publishes), without revealing anything that
// helps guess the token, as an unkeyed hash of it would.
std::uint64_t token_hash(std::string_view token);

// --- what arrives from a peer -------------------------------------------
// Pure checks, fuzzed by tests/fuzz/rdma_wire_fuzz.cpp: bytes from the
// network are decoded here, never by casting them in place.

// A peer's receive ring, as ConnInfo and CmPrivate advertise it. Every slot
// must hold a MsgHeader (the eager capacity is the smaller slot minus the
// header: a smaller one would wrap it around), and the ring must have a
// slot beyond the credit kept in reserve (Channel::can_send), or nothing
// could ever be sent.
inline constexpr std::uint32_t min_peer_ring_slots = 2;
inline constexpr std::uint32_t max_peer_ring_slots = 1u << 16;
// Empty if the ring is usable, else why not.
std::string ring_problem(std::uint32_t ring_slots, std::uint32_t slot_bytes);

// Bytes from a peer, decoded: the value, or why it was refused.
template <typename T>
struct Checked {
  std::optional<T> value;
  std::string problem;  // set when !value
};

// Bootstrap values are text: ConnInfo as lowercase hex. conn_info_from_hex
// refuses anything but 128 lowercase hex digits of our magic and version
// with a usable ring (ring_problem).
std::string to_hex(const ConnInfo& info);
std::optional<ConnInfo> conn_info_from_hex(std::string_view text);

// The CmPrivate at the start of rdma_cm private data (InfiniBand pads it,
// so longer is fine): our magic and version, a usable ring. Who it is from
// and for, and the token, are the caller's to check.
Checked<CmPrivate> decode_cm_private(const void* data, std::size_t length);

// A received SEND: a MsgHeader of our version and a known kind, then the
// payload. Only EAGER carries one, of exactly header.length bytes.
struct Message {
  MsgHeader header;
  const std::byte* payload = nullptr;
  std::size_t payload_bytes = 0;
};
// What decode_message found wrong with a message, if anything.
enum class MessageFault : std::uint8_t { none, runt, version, kind, payload_length };
// Decodes `length` received bytes into `out` (the payload points into
// `bytes`) and says what is wrong, `none` if nothing. It builds no strings:
// it runs per message; message_problem() words a fault for the error.
MessageFault decode_message(const std::byte* bytes, std::size_t length, Message& out) noexcept;
// The text of `fault`, from the `message` and `length` decode_message saw.
std::string message_problem(MessageFault fault, const Message& message, std::size_t length);

}  // namespace rcoll::transport::rdma
