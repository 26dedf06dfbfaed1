// Fuzz target: the bootstrap protocol's frame decoder (bootstrap/wire.hpp),
// on a stream of frames as a server (1 MiB payload limit) and as a client
// (64 MiB limit) would see it.
//
// Invariants, for every frame decode_frame() accepts:
// - it consumed header + payload length, within the bytes it was given;
// - encode_frame() of what it decoded gives back exactly those bytes;
// - every shorter prefix of those bytes decodes as need_more (a frame is
//   never accepted or refused early on a byte that is not there yet).
// A refusal carries a code and a reason, and ends the stream (the server
// closes such a connection).
#include <cstdint>
#include <string_view>

#include "bootstrap/wire.hpp"
#include "fuzz_support.hpp"

namespace wire = rcoll::bootstrap::wire;

namespace {

void check_prefixes(std::string_view frame, std::size_t max_payload) {
  // The header checks are the interesting cut points; the payload bytes
  // themselves are checked at one point only (all but the last byte).
  for (std::size_t cut : {std::size_t{0}, std::size_t{3}, std::size_t{4}, std::size_t{11}, frame.size() - 1}) {
    if (cut >= frame.size()) continue;
    FUZZ_CHECK(wire::decode_frame(frame.substr(0, cut), max_payload).status == wire::Decoded::Status::need_more);
  }
}

void decode_stream(std::string_view bytes, std::size_t max_payload) {
  while (!bytes.empty()) {
    wire::Decoded decoded = wire::decode_frame(bytes, max_payload);
    if (decoded.status == wire::Decoded::Status::need_more) return;
    if (decoded.status == wire::Decoded::Status::error) {
      FUZZ_CHECK(!decoded.detail.empty());
      FUZZ_CHECK(wire::to_string(decoded.error) != "unknown error code");
      return;
    }
    FUZZ_CHECK(decoded.consumed == wire::header_size + decoded.frame.payload.size());
    FUZZ_CHECK(decoded.consumed <= bytes.size());
    FUZZ_CHECK(decoded.frame.payload.size() <= max_payload);
    std::string_view frame = bytes.substr(0, decoded.consumed);
    auto type = static_cast<wire::MessageType>(decoded.frame.type);
    FUZZ_CHECK(wire::encode_frame(type, decoded.frame.payload, decoded.frame.version) == frame);
    (void)wire::to_string(type);
    check_prefixes(frame, max_payload);
    bytes.remove_prefix(decoded.consumed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rcoll::fuzz::init_process();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  decode_stream(bytes, wire::max_request_payload);
  decode_stream(bytes, wire::max_answer_payload);
  return 0;
}
