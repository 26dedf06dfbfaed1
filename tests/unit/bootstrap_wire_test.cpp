// Bootstrap framing and message codecs: round trips, every header check,
// truncation, limits, and a deterministic random-bytes run (the decoders
// must only ever answer need_more/error or throw ProtocolError).
#include <gtest/gtest.h>

#include <random>

#include "bootstrap/messages.hpp"
#include "bootstrap/wire.hpp"

namespace rcoll::bootstrap::wire {
namespace {

std::string payload_of(const std::string& frame) { return frame.substr(header_size); }

TEST(BootstrapWire, FrameRoundTrip) {
  std::string frame = encode_frame(MessageType::put, "hello");
  ASSERT_EQ(frame.size(), header_size + 5);
  EXPECT_EQ(frame.substr(0, 4), "RCBS");  // magic is little-endian "RCBS"
  Decoded decoded = decode_frame(frame + "extra", max_request_payload);
  ASSERT_EQ(decoded.status, Decoded::Status::complete);
  EXPECT_EQ(decoded.consumed, frame.size());
  EXPECT_EQ(decoded.frame.type, static_cast<std::uint16_t>(MessageType::put));
  EXPECT_EQ(decoded.frame.version, protocol_version);
  EXPECT_EQ(decoded.frame.payload, "hello");
}

TEST(BootstrapWire, EveryPrefixNeedsMore) {
  std::string frame = encode_frame(MessageType::get, "0123456789");
  for (std::size_t length = 0; length < frame.size(); ++length)
    EXPECT_EQ(decode_frame(frame.substr(0, length), max_request_payload).status, Decoded::Status::need_more)
        << "prefix of " << length;
}

TEST(BootstrapWire, BadMagicIsSeenAfterFourBytes) {
  Decoded decoded = decode_frame("GET ", max_request_payload);
  ASSERT_EQ(decoded.status, Decoded::Status::error);
  EXPECT_EQ(decoded.error, ErrorCode::bad_magic);
  EXPECT_NE(decoded.detail.find("bad magic"), std::string::npos);
}

TEST(BootstrapWire, OtherVersionIsRefused) {
  Decoded decoded = decode_frame(encode_frame(MessageType::join, "", protocol_version + 1), max_request_payload);
  ASSERT_EQ(decoded.status, Decoded::Status::error);
  EXPECT_EQ(decoded.error, ErrorCode::version_mismatch);
  EXPECT_NE(decoded.detail.find("version " + std::to_string(protocol_version + 1)), std::string::npos);
}

TEST(BootstrapWire, OversizedLengthIsRefusedFromTheHeaderAlone) {
  std::string header = encode_frame(MessageType::join, "").substr(0, 8);
  Writer length;
  length.u32(static_cast<std::uint32_t>(max_request_payload + 1));
  Decoded decoded = decode_frame(header + length.take(), max_request_payload);
  ASSERT_EQ(decoded.status, Decoded::Status::error);
  EXPECT_EQ(decoded.error, ErrorCode::frame_too_large);
}

TEST(BootstrapWire, MessagesRoundTrip) {
  JoinMessage join{{}, {}, 4, 3, 1500, std::string("blob\0with\0nuls", 14)};
  join.nonce[0] = 7;
  join.proof[31] = 9;
  auto join_back = decode_join(payload_of(encode(join)));
  EXPECT_EQ(join_back.nonce, join.nonce);
  EXPECT_EQ(join_back.proof, join.proof);
  EXPECT_EQ(wire::join_fields(join_back), wire::join_fields(join));
  EXPECT_EQ(join_back.size, 4u);
  EXPECT_EQ(join_back.rank, 3u);
  EXPECT_EQ(join_back.timeout_ms, 1500u);
  EXPECT_EQ(join_back.blob, join.blob);

  ChallengeMessage challenge;
  challenge.nonce[15] = 3;
  EXPECT_EQ(decode_challenge(payload_of(encode(challenge))).nonce, challenge.nonce);
  AcceptedMessage accepted;
  accepted.proof[0] = 5;
  EXPECT_EQ(decode_accepted(payload_of(encode(accepted))).proof, accepted.proof);

  MembersMessage members{{{"10.0.0.1", "a"}, {"10.0.0.2", ""}}};
  auto members_back = decode_members(payload_of(encode(members)));
  ASSERT_EQ(members_back.members.size(), 2u);
  EXPECT_EQ(members_back.members[1].address, "10.0.0.2");
  EXPECT_EQ(members_back.members[0].blob, "a");

  ErrorMessage error{ErrorCode::join_timeout, 7, {2, 5}, "ranks never joined"};
  auto error_back = decode_error(payload_of(encode(error)));
  EXPECT_EQ(error_back.code, ErrorCode::join_timeout);
  EXPECT_EQ(error_back.request_id, 7u);
  EXPECT_EQ(error_back.ranks, (std::vector<int>{2, 5}));
  EXPECT_EQ(error_back.text, "ranks never joined");

  auto barrier = decode_barrier(payload_of(encode(BarrierMessage{9, 4, 100})));
  EXPECT_EQ(barrier.request_id, 9u);
  EXPECT_EQ(barrier.generation, 4u);
  EXPECT_EQ(barrier.timeout_ms, 100u);

  auto put = decode_put(payload_of(encode(PutMessage{11, "k", "v"})));
  EXPECT_EQ(put.key, "k");
  EXPECT_EQ(put.value, "v");
  auto get = decode_get(payload_of(encode(GetMessage{12, 50, "k"})));
  EXPECT_EQ(get.timeout_ms, 50u);
  EXPECT_EQ(decode_value(payload_of(encode(ValueMessage{13, "v"}))).value, "v");
  EXPECT_EQ(decode_done(payload_of(encode(MessageType::put_done, DoneMessage{14}))).request_id, 14u);
}

void expect_malformed(void (*decode)(std::string_view), std::string_view payload) {
  try {
    decode(payload);
    ADD_FAILURE() << "decoded a malformed payload of " << payload.size() << " bytes";
  } catch (const ProtocolError& error) {
    EXPECT_EQ(error.code(), ErrorCode::malformed) << error.what();
  }
}

TEST(BootstrapWire, TruncatedAndTrailingBytesAreMalformed) {
  std::string join = payload_of(encode(JoinMessage{{}, {}, 2, 1, 10, "blob"}));
  auto decode = [](std::string_view bytes) { decode_join(bytes); };
  for (std::size_t length = 0; length < join.size(); ++length) expect_malformed(decode, join.substr(0, length));
  expect_malformed(decode, join + "x");
}

TEST(BootstrapWire, FieldLimitsAreEnforced) {
  expect_malformed([](std::string_view bytes) { decode_join(bytes); },
                   payload_of(encode(JoinMessage{{}, {}, 2, 1, 10, std::string(max_blob + 1, 'b')})));
  expect_malformed([](std::string_view bytes) { decode_put(bytes); },
                   payload_of(encode(PutMessage{1, std::string(max_key + 1, 'k'), "v"})));
  // A member count the bytes cannot hold is refused before anything is reserved.
  Writer huge;
  huge.u32(max_world_size);
  expect_malformed([](std::string_view bytes) { decode_members(bytes); }, huge.take());
}

TEST(BootstrapWire, RandomBytesNeverBreakTheDecoders) {
  std::mt19937 random(12345);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 64);
  using Decoder = void (*)(std::string_view);
  const Decoder decoders[] = {
      [](std::string_view b) { decode_join(b); },    [](std::string_view b) { decode_members(b); },
      [](std::string_view b) { decode_error(b); },   [](std::string_view b) { decode_barrier(b); },
      [](std::string_view b) { decode_put(b); },     [](std::string_view b) { decode_get(b); },
      [](std::string_view b) { decode_value(b); },   [](std::string_view b) { decode_done(b); },
      [](std::string_view b) { decode_challenge(b); }, [](std::string_view b) { decode_accepted(b); }};
  int complete = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(static_cast<std::size_t>(length(random)), '\0');
    for (auto& c : bytes) c = static_cast<char>(byte(random));
    // Half the inputs get a valid header so the payload decoders run deeper.
    if (i % 2 == 0) bytes = encode_frame(static_cast<MessageType>(1 + i % 11), bytes);
    Decoded decoded = decode_frame(bytes, 1024);
    if (decoded.status != Decoded::Status::complete) continue;
    ++complete;
    EXPECT_LE(decoded.consumed, bytes.size());
    for (Decoder decode : decoders) {
      try {
        decode(decoded.frame.payload);
      } catch (const ProtocolError&) {
      }
    }
  }
  EXPECT_GT(complete, 5000);
}

}  // namespace
}  // namespace rcoll::bootstrap::wire
