#include "transport/rdma/wire.hpp"

#include <cstring>

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

std::uint64_t token_hash(std::string_view token) noexcept {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : token) {
    hash ^= static_cast<std::uint8_t>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
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
  return info;
}

}  // namespace rcoll::transport::rdma
