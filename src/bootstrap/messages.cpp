#include "bootstrap/messages.hpp"

#include "store/keys.hpp"

namespace rcoll::bootstrap::wire {

std::string encode(const ChallengeMessage& message) {
  Writer out;
  out.fixed(message.nonce.data(), message.nonce.size());
  return encode_frame(MessageType::challenge, out.take());
}

std::string join_fields(const JoinMessage& message) {
  Writer out;
  out.u32(message.size);
  out.u32(message.rank);
  out.u32(message.timeout_ms);
  out.str(message.blob);
  return out.take();
}

std::string encode(const JoinMessage& message) {
  Writer out;
  out.fixed(message.nonce.data(), message.nonce.size());
  out.fixed(message.proof.data(), message.proof.size());
  return encode_frame(MessageType::join, out.take() + join_fields(message));
}

std::string encode(const AcceptedMessage& message) {
  Writer out;
  out.fixed(message.proof.data(), message.proof.size());
  return encode_frame(MessageType::accepted, out.take());
}

std::string encode(const MembersMessage& message) {
  Writer out;
  out.u32(static_cast<std::uint32_t>(message.members.size()));
  for (const auto& member : message.members) {
    out.str(member.address);
    out.str(member.blob);
  }
  return encode_frame(MessageType::members, out.take());
}

std::string encode(const ErrorMessage& message) {
  Writer out;
  out.u16(static_cast<std::uint16_t>(message.code));
  out.u64(message.request_id);
  out.u32(static_cast<std::uint32_t>(message.ranks.size()));
  for (int rank : message.ranks) out.u32(static_cast<std::uint32_t>(rank));
  out.str(message.text.substr(0, max_text));
  return encode_frame(MessageType::error, out.take());
}

std::string encode(const BarrierMessage& message) {
  Writer out;
  out.u64(message.request_id);
  out.u64(message.generation);
  out.u32(message.timeout_ms);
  return encode_frame(MessageType::barrier, out.take());
}

std::string encode(MessageType done_type, const DoneMessage& message) {
  Writer out;
  out.u64(message.request_id);
  return encode_frame(done_type, out.take());
}

std::string encode(const PutMessage& message) {
  Writer out;
  out.u64(message.request_id);
  out.str(message.key);
  out.str(message.value);
  return encode_frame(MessageType::put, out.take());
}

std::string encode(const GetMessage& message) {
  Writer out;
  out.u64(message.request_id);
  out.u32(message.timeout_ms);
  out.str(message.key);
  return encode_frame(MessageType::get, out.take());
}

std::string encode(const ValueMessage& message) {
  Writer out;
  out.u64(message.request_id);
  out.str(message.value);
  return encode_frame(MessageType::value, out.take());
}

ChallengeMessage decode_challenge(std::string_view payload) {
  Reader in(payload);
  ChallengeMessage message;
  in.fixed("server nonce", message.nonce.data(), message.nonce.size());
  in.expect_end("CHALLENGE");
  return message;
}

AcceptedMessage decode_accepted(std::string_view payload) {
  Reader in(payload);
  AcceptedMessage message;
  in.fixed("server proof", message.proof.data(), message.proof.size());
  in.expect_end("ACCEPTED");
  return message;
}

JoinMessage decode_join(std::string_view payload) {
  Reader in(payload);
  JoinMessage message;
  in.fixed("client nonce", message.nonce.data(), message.nonce.size());
  in.fixed("client proof", message.proof.data(), message.proof.size());
  message.size = in.u32("world size");
  message.rank = in.u32("rank");
  message.timeout_ms = in.u32("join timeout");
  message.blob = in.str("endpoint blob", max_blob);
  in.expect_end("JOIN");
  return message;
}

MembersMessage decode_members(std::string_view payload) {
  Reader in(payload);
  std::uint32_t count = in.u32("member count");
  // Each member takes at least two length fields: refuse counts the bytes
  // cannot hold before reserving anything.
  if (count > max_world_size || count > in.left() / 8)
    throw ProtocolError(ErrorCode::malformed, "member count " + std::to_string(count) + " does not fit the frame");
  MembersMessage message;
  message.members.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    PeerEndpoint member;
    member.address = in.str("member address", max_address);
    member.blob = in.str("member blob", max_blob);
    message.members.push_back(std::move(member));
  }
  in.expect_end("MEMBERS");
  return message;
}

ErrorMessage decode_error(std::string_view payload) {
  Reader in(payload);
  ErrorMessage message;
  message.code = static_cast<ErrorCode>(in.u16("error code"));
  message.request_id = in.u64("request id");
  std::uint32_t count = in.u32("rank count");
  if (count > max_world_size || count > in.left() / 4)
    throw ProtocolError(ErrorCode::malformed, "rank count " + std::to_string(count) + " does not fit the frame");
  message.ranks.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint32_t rank = in.u32("rank");
    if (rank >= max_world_size) throw ProtocolError(ErrorCode::malformed, "rank " + std::to_string(rank) + " out of range");
    message.ranks.push_back(static_cast<int>(rank));
  }
  message.text = in.str("error text", max_text);
  in.expect_end("ERROR");
  return message;
}

BarrierMessage decode_barrier(std::string_view payload) {
  Reader in(payload);
  BarrierMessage message;
  message.request_id = in.u64("request id");
  message.generation = in.u64("barrier generation");
  message.timeout_ms = in.u32("barrier timeout");
  in.expect_end("BARRIER");
  return message;
}

DoneMessage decode_done(std::string_view payload) {
  Reader in(payload);
  DoneMessage message;
  message.request_id = in.u64("request id");
  in.expect_end("DONE");
  return message;
}

PutMessage decode_put(std::string_view payload) {
  Reader in(payload);
  PutMessage message;
  message.request_id = in.u64("request id");
  message.key = in.str("key", max_key);
  message.value = in.str("value", max_value);
  in.expect_end("PUT");
  return message;
}

GetMessage decode_get(std::string_view payload) {
  Reader in(payload);
  GetMessage message;
  message.request_id = in.u64("request id");
  message.timeout_ms = in.u32("get timeout");
  message.key = in.str("key", max_key);
  in.expect_end("GET");
  return message;
}

ValueMessage decode_value(std::string_view payload) {
  Reader in(payload);
  ValueMessage message;
  message.request_id = in.u64("request id");
  message.value = in.str("value", max_value);
  in.expect_end("VALUE");
  return message;
}

bool is_reserved_key(std::string_view key) noexcept { return key.starts_with(store::keys::departed_prefix); }

std::string format_ranks(const std::vector<int>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(ranks[i]);
  }
  return text;
}

}  // namespace rcoll::bootstrap::wire
