#include "bootstrap/wire.hpp"

#include <algorithm>
#include <cstdio>

namespace rcoll::bootstrap::wire {
namespace {

template <typename T>
T load_le(const char* at) noexcept {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<T>(static_cast<unsigned char>(at[i])) << (8 * i);
  return value;
}

template <typename T>
void store_le(std::string& out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::string hex32(std::uint32_t value) {
  char text[9];
  std::snprintf(text, sizeof(text), "%08x", value);
  return text;
}

Decoded failure(ErrorCode code, std::string detail) {
  Decoded result;
  result.status = Decoded::Status::error;
  result.error = code;
  result.detail = std::move(detail);
  return result;
}

}  // namespace

std::uint32_t load_u32(const char* at) noexcept { return load_le<std::uint32_t>(at); }
std::uint16_t load_u16(const char* at) noexcept { return load_le<std::uint16_t>(at); }

std::string_view to_string(MessageType type) noexcept {
  switch (type) {
    case MessageType::join: return "JOIN";
    case MessageType::members: return "MEMBERS";
    case MessageType::error: return "ERROR";
    case MessageType::barrier: return "BARRIER";
    case MessageType::barrier_done: return "BARRIER_DONE";
    case MessageType::put: return "PUT";
    case MessageType::put_done: return "PUT_DONE";
    case MessageType::get: return "GET";
    case MessageType::value: return "VALUE";
    case MessageType::challenge: return "CHALLENGE";
    case MessageType::accepted: return "ACCEPTED";
  }
  return "UNKNOWN";
}

std::string_view to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::bad_magic: return "bad magic";
    case ErrorCode::version_mismatch: return "version mismatch";
    case ErrorCode::wrong_token: return "authentication failed";
    case ErrorCode::size_mismatch: return "world size mismatch";
    case ErrorCode::rank_out_of_range: return "rank out of range";
    case ErrorCode::duplicate_rank: return "duplicate rank";
    case ErrorCode::frame_too_large: return "frame too large";
    case ErrorCode::malformed: return "malformed frame";
    case ErrorCode::unexpected_message: return "unexpected message";
    case ErrorCode::join_timeout: return "join timeout";
    case ErrorCode::rank_lost: return "rank lost";
    case ErrorCode::key_conflict: return "key conflict";
    case ErrorCode::wait_timeout: return "wait timeout";
    case ErrorCode::resource_limit: return "resource limit";
    case ErrorCode::server_shutdown: return "server shutdown";
  }
  return "unknown error code";
}

Decoded decode_frame(std::string_view bytes, std::size_t max_payload) {
  if (bytes.size() >= 4 && load_u32(bytes.data()) != frame_magic)
    return failure(ErrorCode::bad_magic,
                   "bad magic 0x" + hex32(load_u32(bytes.data())) + " (not an rcoll bootstrap peer?)");
  if (bytes.size() < header_size) return Decoded{};
  std::uint16_t version = load_u16(bytes.data() + 4);
  if (version != protocol_version)
    return failure(ErrorCode::version_mismatch, "peer speaks protocol version " + std::to_string(version) +
                                                    ", this side speaks " + std::to_string(protocol_version));
  std::uint32_t length = load_u32(bytes.data() + 8);
  if (length > max_payload)
    return failure(ErrorCode::frame_too_large, "frame payload of " + std::to_string(length) +
                                                   " bytes exceeds the limit of " + std::to_string(max_payload));
  if (bytes.size() - header_size < length) return Decoded{};
  Decoded result;
  result.status = Decoded::Status::complete;
  result.frame.version = version;
  result.frame.type = load_u16(bytes.data() + 6);
  result.frame.payload.assign(bytes.substr(header_size, length));
  result.consumed = header_size + length;
  return result;
}

std::string encode_frame(MessageType type, std::string_view payload, std::uint16_t version) {
  std::string out;
  out.reserve(header_size + payload.size());
  store_le<std::uint32_t>(out, frame_magic);
  store_le<std::uint16_t>(out, version);
  store_le<std::uint16_t>(out, static_cast<std::uint16_t>(type));
  store_le<std::uint32_t>(out, static_cast<std::uint32_t>(payload.size()));
  out.append(payload);
  return out;
}

void Writer::u16(std::uint16_t value) { store_le(out_, value); }
void Writer::u32(std::uint32_t value) { store_le(out_, value); }
void Writer::u64(std::uint64_t value) { store_le(out_, value); }
void Writer::str(std::string_view value) {
  u32(static_cast<std::uint32_t>(value.size()));
  out_.append(value);
}

void Writer::fixed(const std::uint8_t* data, std::size_t count) {
  out_.append(reinterpret_cast<const char*>(data), count);
}

std::string_view Reader::take(std::size_t count, const char* what) {
  if (count > left())
    throw ProtocolError(ErrorCode::malformed, std::string("truncated payload: ") + what + " needs " +
                                                  std::to_string(count) + " bytes, " + std::to_string(left()) +
                                                  " left");
  auto part = bytes_.substr(at_, count);
  at_ += count;
  return part;
}

std::uint16_t Reader::u16(const char* what) { return load_le<std::uint16_t>(take(2, what).data()); }
std::uint32_t Reader::u32(const char* what) { return load_le<std::uint32_t>(take(4, what).data()); }
std::uint64_t Reader::u64(const char* what) { return load_le<std::uint64_t>(take(8, what).data()); }

std::string Reader::str(const char* what, std::size_t max_length) {
  std::uint32_t length = u32(what);
  if (length > max_length)
    throw ProtocolError(ErrorCode::malformed, std::string(what) + " of " + std::to_string(length) +
                                                  " bytes exceeds the limit of " + std::to_string(max_length));
  return std::string(take(length, what));
}

void Reader::fixed(const char* what, std::uint8_t* out, std::size_t count) {
  std::string_view part = take(count, what);
  std::copy(part.begin(), part.end(), reinterpret_cast<char*>(out));
}

void Reader::expect_end(const char* message_name) const {
  if (left() != 0)
    throw ProtocolError(ErrorCode::malformed, std::string(message_name) + " has " + std::to_string(left()) +
                                                  " unexpected trailing bytes");
}

}  // namespace rcoll::bootstrap::wire
