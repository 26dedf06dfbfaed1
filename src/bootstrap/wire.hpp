// Framing of the bootstrap protocol (docs/PROTOCOLS.md, "Bootstrap rank
// service"): a fixed 12-byte little-endian header followed by a payload.
//
// Everything here is pure (no I/O, no globals), so decode_frame() and the
// Reader can be fed arbitrary bytes by a fuzzer: they never read out of
// bounds, never allocate more than the bytes they were given, and report
// every problem as a value (decode_frame) or a ProtocolError (Reader).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "bootstrap/bootstrap.hpp"

namespace rcoll::bootstrap::wire {

// "RCBS" (rcoll bootstrap) as bytes on the wire (little-endian u32); the TCP
// transport uses another magic, so a client at the wrong port is told so.
inline constexpr std::uint32_t frame_magic = 0x53424352;

struct FrameHeader {
  std::uint32_t magic;
  std::uint16_t version;
  std::uint16_t type;
  std::uint32_t length;  // payload bytes after the header
};
inline constexpr std::size_t header_size = 12;
static_assert(sizeof(FrameHeader) == header_size, "FrameHeader must be 12 bytes, no padding");

// Largest payload a server accepts from a client.
inline constexpr std::size_t max_request_payload = std::size_t{1} << 20;
// Largest payload a client accepts from the server (the members list).
inline constexpr std::size_t max_answer_payload = std::size_t{64} << 20;

enum class MessageType : std::uint16_t {
  join = 1,          // client -> server
  members = 2,       // server -> client: the job formed
  error = 3,         // server -> client: refusal or failure
  barrier = 4,       // client -> server
  barrier_done = 5,  // server -> client
  put = 6,           // client -> server
  put_done = 7,      // server -> client
  get = 8,           // client -> server
  value = 9,         // server -> client
  challenge = 10,    // server -> client: the first frame on every connection, the server's nonce
  accepted = 11,     // server -> client: the JOIN's proof was right; the server's own proof
};
std::string_view to_string(MessageType type) noexcept;

// Codes of an ERROR frame; stable on the wire (never renumber).
enum class ErrorCode : std::uint16_t {
  bad_magic = 1,
  version_mismatch = 2,
  wrong_token = 3,  // the JOIN's proof of the job token was wrong ("authentication failed")
  size_mismatch = 4,
  rank_out_of_range = 5,
  duplicate_rank = 6,
  frame_too_large = 7,
  malformed = 8,
  unexpected_message = 9,
  join_timeout = 10,  // ranks = those that never joined
  rank_lost = 11,     // ranks = the rank(s) that disconnected
  key_conflict = 12,
  wait_timeout = 13,  // ranks = those a barrier still waited for
  resource_limit = 14,
  server_shutdown = 15,
};
std::string_view to_string(ErrorCode code) noexcept;

// A protocol violation found while decoding; `code` is what the server
// answers with (usually malformed).
class ProtocolError : public std::runtime_error {
 public:
  ProtocolError(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

struct Frame {
  std::uint16_t version = protocol_version;
  std::uint16_t type = 0;
  std::string payload;
};

struct Decoded {
  enum class Status { complete, need_more, error };
  Status status = Status::need_more;
  Frame frame;               // valid when complete
  std::size_t consumed = 0;  // bytes of `bytes` the frame used (complete only)
  ErrorCode error{};         // valid when error
  std::string detail;        // human-readable reason (error only)
};

// Decodes the first frame at the start of `bytes`. Checks the magic as soon
// as 4 bytes are there (so a stray client is refused without waiting for
// 12), then the version and `max_payload`, before waiting for the payload.
Decoded decode_frame(std::string_view bytes, std::size_t max_payload);

// Header + payload. `version` is a parameter only so tests can speak a
// wrong one.
std::string encode_frame(MessageType type, std::string_view payload, std::uint16_t version = protocol_version);

// Appends little-endian fields.
class Writer {
 public:
  void u16(std::uint16_t value);
  void u32(std::uint32_t value);
  void u64(std::uint64_t value);
  // u32 length + bytes.
  void str(std::string_view value);
  // Bytes without a length (fixed-size fields).
  void fixed(const std::uint8_t* data, std::size_t count);
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads little-endian fields; every read is bounds-checked and throws
// ProtocolError(malformed) naming `what` when the bytes run out or a string
// is longer than its limit.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  std::uint16_t u16(const char* what);
  std::uint32_t u32(const char* what);
  std::uint64_t u64(const char* what);
  std::string str(const char* what, std::size_t max_length);
  // Exactly `count` bytes into `out` (fixed-size fields: nonces, proofs).
  void fixed(const char* what, std::uint8_t* out, std::size_t count);
  std::size_t left() const noexcept { return bytes_.size() - at_; }
  // Throws if bytes are left over.
  void expect_end(const char* message_name) const;

 private:
  std::string_view take(std::size_t count, const char* what);
  std::string_view bytes_;
  std::size_t at_ = 0;
};

// Little-endian load/store of the header fields.
std::uint32_t load_u32(const char* at) noexcept;
std::uint16_t load_u16(const char* at) noexcept;

}  // namespace rcoll::bootstrap::wire
