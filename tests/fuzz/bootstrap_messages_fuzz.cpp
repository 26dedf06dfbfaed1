// Fuzz target: the bootstrap protocol's message decoders
// (bootstrap/messages.hpp), i.e. what the server makes of a client's
// payload (JOIN, BARRIER, PUT, GET) and what a client makes of the
// server's (CHALLENGE, ACCEPTED, MEMBERS, ERROR, BARRIER_DONE/PUT_DONE,
// VALUE).
//
// Input: one byte selects the decoder, the rest is the payload.
// Invariants: a decoder either returns a message or throws
// wire::ProtocolError(malformed), nothing else; every field respects its
// limit; and since every layout is canonical, encode(decode(payload)) is
// exactly the frame that carries `payload`.
#include <cstdint>
#include <string>
#include <string_view>

#include "bootstrap/messages.hpp"
#include "fuzz_support.hpp"

namespace wire = rcoll::bootstrap::wire;

namespace {

// Decodes `payload` with the decoder of `type` and re-encodes the result.
std::string round_trip(wire::MessageType type, std::string_view payload) {
  using T = wire::MessageType;
  switch (type) {
    case T::join: {
      auto m = wire::decode_join(payload);
      FUZZ_CHECK(m.blob.size() <= wire::max_blob);
      return wire::encode(m);
    }
    case T::members: {
      auto m = wire::decode_members(payload);
      FUZZ_CHECK(m.members.size() <= wire::max_world_size);
      for (const auto& member : m.members)
        FUZZ_CHECK(member.address.size() <= wire::max_address && member.blob.size() <= wire::max_blob);
      return wire::encode(m);
    }
    case T::error: {
      auto m = wire::decode_error(payload);
      FUZZ_CHECK(m.text.size() <= wire::max_text);
      for (int rank : m.ranks) FUZZ_CHECK(rank >= 0 && static_cast<std::uint32_t>(rank) < wire::max_world_size);
      (void)wire::format_ranks(m.ranks);
      (void)wire::to_string(m.code);
      return wire::encode(m);
    }
    case T::barrier: return wire::encode(wire::decode_barrier(payload));
    case T::barrier_done:
    case T::put_done: return wire::encode(type, wire::decode_done(payload));
    case T::put: {
      auto m = wire::decode_put(payload);
      FUZZ_CHECK(m.key.size() <= wire::max_key && m.value.size() <= wire::max_value);
      return wire::encode(m);
    }
    case T::get: {
      auto m = wire::decode_get(payload);
      FUZZ_CHECK(m.key.size() <= wire::max_key);
      return wire::encode(m);
    }
    case T::challenge: return wire::encode(wire::decode_challenge(payload));
    case T::accepted: return wire::encode(wire::decode_accepted(payload));
    case T::value: {
      auto m = wire::decode_value(payload);
      FUZZ_CHECK(m.value.size() <= wire::max_value);
      return wire::encode(m);
    }
  }
  std::abort();  // unreachable: the caller picks a known type
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rcoll::fuzz::init_process();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rcoll::fuzz::Input input(data, size);
  auto type = static_cast<wire::MessageType>(input.u8() % 11 + 1);  // join .. accepted
  std::string_view payload = input.rest();
  try {
    std::string frame = round_trip(type, payload);
    FUZZ_CHECK(frame == wire::encode_frame(type, payload));
  } catch (const wire::ProtocolError& error) {
    FUZZ_CHECK(error.code() == wire::ErrorCode::malformed);
    FUZZ_CHECK(*error.what() != '\0');
  }
  return 0;
}
