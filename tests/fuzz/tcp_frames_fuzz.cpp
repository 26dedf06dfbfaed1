// Fuzz target: the TCP transport's receive stream (transport/tcp/
// rx_stream.hpp), which splits a connection's bytes into frame headers and
// payloads, reading payloads straight into their destination with readv.
//
// Input: one byte picks how the stream is cut into writes (0: as it comes,
// else writes of that many bytes, so headers and payloads straddle reads);
// the rest is the byte stream, written into a socketpair.
// The sink takes every payload up to 1 MiB into a buffer of its own (odd
// tags: discarded, as for a cancelled receive) and refuses larger ones with
// a ProtocolError, as the transport does.
// Invariants: the headers and kept payloads the stream reports, laid end to
// end, are exactly the bytes that were written (nothing skipped, nothing
// invented, no payload byte out of place); every payload is completed once,
// in order; a bad header ends the stream with a ProtocolError; what is
// left unreported is less than a header, or the rest of one payload.
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "transport/tcp/rx_stream.hpp"

namespace tcp = rcoll::transport::tcp;

namespace {

constexpr std::uint64_t max_payload = std::uint64_t{1} << 20;

struct Seen {
  tcp::FrameHeader header;
  std::vector<std::byte> payload;  // kept payloads only
  bool kept = false;
  bool done = false;
};

class RecordingSink final : public tcp::FrameSink {
 public:
  std::byte* on_frame(const tcp::FrameHeader& header) override {
    FUZZ_CHECK(header.magic == tcp::frame_magic && header.version == tcp::wire_version);
    FUZZ_CHECK(frames.empty() || !awaiting_payload());
    Seen& seen = frames.emplace_back();
    seen.header = header;
    if (!tcp::carries_payload(header.type)) return nullptr;
    if (header.length > max_payload) throw tcp::ProtocolError("payload too large");
    seen.kept = header.tag % 2 == 0;
    if (!seen.kept) return nullptr;
    seen.payload.resize(header.length);
    return seen.payload.data();
  }
  void on_payload_done() override {
    FUZZ_CHECK(awaiting_payload());
    frames.back().done = true;
  }
  bool awaiting_payload() const {
    return !frames.empty() && tcp::carries_payload(frames.back().header.type) && !frames.back().done;
  }

  std::deque<Seen> frames;
};

// The reported frames, laid end to end, match `stream`; returns the bytes they cover.
std::size_t check_against(const RecordingSink& sink, std::string_view stream) {
  std::size_t at = 0;
  for (const Seen& seen : sink.frames) {
    FUZZ_CHECK(at + sizeof(seen.header) <= stream.size());
    FUZZ_CHECK(std::memcmp(&seen.header, stream.data() + at, sizeof(seen.header)) == 0);
    at += sizeof(seen.header);
    if (!tcp::carries_payload(seen.header.type) || !seen.done) continue;
    FUZZ_CHECK(at + seen.header.length <= stream.size());
    if (seen.kept && seen.header.length > 0)
      FUZZ_CHECK(std::memcmp(seen.payload.data(), stream.data() + at, seen.header.length) == 0);
    at += seen.header.length;
  }
  return at;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rcoll::fuzz::init_process();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rcoll::fuzz::Input input(data, size);
  std::size_t cut = input.u8();
  std::string_view stream = input.rest();
  auto sockets = rcoll::fuzz::SocketPair::make();
  RecordingSink sink;
  tcp::RxStream rx;
  bool refused = false;
  std::size_t written = 0;
  try {
    while (written < stream.size()) {
      std::size_t piece = cut == 0 ? stream.size() - written : std::min(cut, stream.size() - written);
      written += sockets.feed(stream.substr(written, piece));
      auto result = rx.pump(sockets.near.get(), sink);
      FUZZ_CHECK(result.error == 0 && !result.closed);
    }
    sockets.hang_up();
    auto result = rx.pump(sockets.near.get(), sink);
    FUZZ_CHECK(result.closed);
  } catch (const tcp::ProtocolError&) {
    refused = true;
  }
  std::size_t covered = check_against(sink, stream);
  if (refused) return 0;
  std::size_t left = stream.size() - covered;
  if (sink.awaiting_payload())
    FUZZ_CHECK(left < sink.frames.back().header.length);
  else
    FUZZ_CHECK(left < sizeof(tcp::FrameHeader) && rx.state() == tcp::RxStream::State::reading_header);
  return 0;
}
