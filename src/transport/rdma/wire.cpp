#include "transport/rdma/wire.hpp"

#include <cstring>
#include <string>

#include "common/auth.hpp"

namespace rcoll::transport::rdma {

std::string_view kind_name(MsgKind kind) noexcept {
  switch (kind) {
    case MsgKind::eager: return "EAGER";
    case MsgKind::rts: return "RTS";
    case MsgKind::cts: return "CTS";
    case MsgKind::credit: return "CREDIT";
    case MsgKind::recv_abort: return "RECV_ABORT";
    case MsgKind::send_abort: return "SEND_ABORT";
  }
  return "UNKNOWN";
}

std::uint64_t token_hash(std::string_view token) {
  return auth::token_id(token, "rcoll/1 rdma connection data");
}

std::string to_hex(const ConnInfo& info) {
  static constexpr char digits[] = "0123456789abcdef";
  unsigned char raw[sizeof(ConnInfo)];
  std::memcpy(raw, &info, sizeof(raw));
  std::string text;
  text.reserve(2 * sizeof(raw));
  for (unsigned char byte : raw) {
    text.push_back(digits[byte >> 4]);
    text.push_back(digits[byte & 15]);
  }
  return text;
}

std::optional<ConnInfo> conn_info_from_hex(std::string_view text) {
  if (text.size() != 2 * sizeof(ConnInfo)) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  unsigned char raw[sizeof(ConnInfo)];
  for (std::size_t i = 0; i < sizeof(raw); ++i) {
    int high = nibble(text[2 * i]), low = nibble(text[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    raw[i] = static_cast<unsigned char>(high << 4 | low);
  }
  ConnInfo info;
  std::memcpy(&info, raw, sizeof(info));
  if (info.magic != conn_magic || info.version != wire_version) return std::nullopt;
  if (!ring_problem(info.ring_slots, info.slot_bytes).empty()) return std::nullopt;
  return info;
}

std::string ring_problem(std::uint32_t ring_slots, std::uint32_t slot_bytes) {
  if (ring_slots < min_peer_ring_slots || ring_slots > max_peer_ring_slots)
    return "peer advertises a receive ring of " + std::to_string(ring_slots) + " slots (allowed: " +
           std::to_string(min_peer_ring_slots) + " to " + std::to_string(max_peer_ring_slots) + ")";
  if (slot_bytes < sizeof(MsgHeader))
    return "peer advertises receive slots of " + std::to_string(slot_bytes) + " bytes, less than a " +
           std::to_string(sizeof(MsgHeader)) + "-byte message header";
  return {};
}

Checked<CmPrivate> decode_cm_private(const void* data, std::size_t length) {
  CmPrivate value;
  if (data == nullptr || length < sizeof(value))
    return {std::nullopt, "no rcoll private data in the connection (" + std::to_string(length) + " bytes)"};
  std::memcpy(&value, data, sizeof(value));
  if (value.magic != conn_magic || value.version != wire_version)
    return {std::nullopt, "peer speaks another rcoll wire version"};
  if (std::string problem = ring_problem(value.ring_slots, value.slot_bytes); !problem.empty())
    return {std::nullopt, std::move(problem)};
  return {value, {}};
}

namespace {

bool known_kind(MsgKind kind) noexcept {
  return kind >= MsgKind::eager && kind <= MsgKind::send_abort;
}

std::uint64_t expected_payload(const MsgHeader& header) noexcept {
  return header.kind == MsgKind::eager ? header.length : 0;
}

}  // namespace

MessageFault decode_message(const std::byte* bytes, std::size_t length, Message& out) noexcept {
  if (length < sizeof(MsgHeader)) return MessageFault::runt;
  std::memcpy(&out.header, bytes, sizeof(MsgHeader));
  if (out.header.version != wire_version) return MessageFault::version;
  if (!known_kind(out.header.kind)) return MessageFault::kind;
  out.payload = bytes + sizeof(MsgHeader);
  out.payload_bytes = length - sizeof(MsgHeader);
  if (out.payload_bytes != expected_payload(out.header)) return MessageFault::payload_length;
  return MessageFault::none;
}

std::string message_problem(MessageFault fault, const Message& message, std::size_t length) {
  const MsgHeader& header = message.header;
  switch (fault) {
    case MessageFault::none: return {};
    case MessageFault::runt: return "runt message of " + std::to_string(length) + " bytes";
    case MessageFault::version:
      return "peer speaks wire version " + std::to_string(header.version) + ", this rank " +
             std::to_string(wire_version);
    case MessageFault::kind: return "unknown message kind " + std::to_string(static_cast<int>(header.kind));
    case MessageFault::payload_length:
      return std::string(kind_name(header.kind)) + " header says " + std::to_string(expected_payload(header)) +
             " payload bytes, message carries " + std::to_string(message.payload_bytes);
  }
  return "malformed message";
}

}  // namespace rcoll::transport::rdma
