// Fuzz target: the TCP transport's message layer towards one peer
// (transport/tcp/peer.hpp) fed a hostile peer's byte stream: frame
// headers, the eager and rendezvous protocols, matching, truncation,
// cancellation and failure. The peer's connection is a socketpair; what it
// sends back (CTS, DATA) is parsed on the far side by a second RxStream
// and must be well-formed.
//
// Input: operations until the bytes run out:
//   post a receive (tag 0-3, capacity 0-2047) | post a send (tag 0-3,
//   0-1023 bytes; above the 256-byte eager limit it goes by rendezvous) |
//   cancel a request | write n stream bytes | hang up.
// Invariants: a receive completes with at most its capacity, its bytes
// written only inside its buffer (ASan); a peer that fails leaves no
// request pending; the frames the peer sends are well-formed and DATA
// carries exactly the bytes of the send it answers.
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "fuzz_support.hpp"
#include "transport/tcp/peer.hpp"

namespace tcp = rcoll::transport::tcp;
using rcoll::transport::Request;
using rcoll::transport::RequestPtr;

namespace {

constexpr std::size_t eager_limit = 256;

struct Op {
  RequestPtr request;
  std::vector<std::byte> buffer;  // receive buffer, or the bytes of a send
};

// The far side: checks every frame the peer under test sends.
class FarSink final : public tcp::FrameSink {
 public:
  explicit FarSink(const std::deque<Op>& ops) : ops_(ops) {}
  std::byte* on_frame(const tcp::FrameHeader& header) override {
    FUZZ_CHECK(header.type == tcp::FrameType::eager || header.type == tcp::FrameType::rts ||
               header.type == tcp::FrameType::cts || header.type == tcp::FrameType::data);
    if (header.type == tcp::FrameType::eager) FUZZ_CHECK(header.length <= eager_limit);
    if (header.type == tcp::FrameType::rts) FUZZ_CHECK(header.length > eager_limit);
    if (!tcp::carries_payload(header.type)) return nullptr;
    if (header.flags & tcp::flag_withdrawn) FUZZ_CHECK(header.type == tcp::FrameType::data && header.length == 0);
    // EAGER carries a send's own tag; DATA is matched by id and echoes the
    // tag of the CTS it answers, which the remote side chose.
    FUZZ_CHECK(sent_as(header.type == tcp::FrameType::eager, header.tag, header.length));
    payload_.assign(header.length, std::byte{0});
    return payload_.data();
  }
  // Sends are filled with 0x5a: only those bytes may leave.
  void on_payload_done() override {
    for (std::byte b : payload_) FUZZ_CHECK(b == std::byte{0x5a});
  }

 private:
  bool sent_as(bool check_tag, std::uint64_t tag, std::uint64_t length) const {
    if (length == 0) return true;  // a withdrawn DATA, or an empty send
    for (const Op& op : ops_)
      if (op.request->kind() == Request::Kind::send && (!check_tag || op.request->tag() == tag) &&
          op.buffer.size() == length)
        return true;
    return false;
  }

  const std::deque<Op>& ops_;
  std::vector<std::byte> payload_;
};

class Harness {
 public:
  Harness() : peer_(0, 1, eager_limit, poller_), far_(ops_) {
    poller_.add(sockets_.near.get(), tcp::make_key(tcp::SocketRole::peer, 1), false);
    peer_.attach(std::move(sockets_.near));
  }

  ~Harness() {
    for (auto& op : ops_)
      if (op.request->pending()) peer_.cancel(*op.request);
  }

  void post_recv(std::uint8_t tag, std::size_t capacity) {
    auto request = rcoll::transport::make_request(Request::Kind::recv, 1, tag, capacity);
    Op& op = ops_.emplace_back(Op{request, std::vector<std::byte>(capacity)});
    peer_.post_recv(request, op.buffer.data(), capacity);
    settle();
  }

  void post_send(std::uint8_t tag, std::size_t bytes) {
    if (peer_.state() == tcp::Peer::State::failed) return;  // contract: not on a failed peer
    auto request = rcoll::transport::make_request(Request::Kind::send, 1, tag, bytes);
    Op& op = ops_.emplace_back(Op{request, std::vector<std::byte>(bytes, std::byte{0x5a})});
    peer_.post_send(request, op.buffer.data(), bytes);
    settle();
  }

  void cancel(std::size_t index) {
    if (ops_.empty()) return;
    Op& op = ops_[index % ops_.size()];
    if (op.request->pending()) peer_.cancel(*op.request);
  }

  void write(std::string_view bytes) {
    while (!bytes.empty() && peer_.state() == tcp::Peer::State::ready) {
      std::size_t n = sockets_.feed(bytes);
      bytes.remove_prefix(n);
      peer_.on_events(EPOLLIN);
      settle();
      if (n == 0) break;
    }
  }

  void hang_up() {
    sockets_.hang_up();
    peer_.on_events(EPOLLIN | EPOLLHUP);
    settle();
  }

 private:
  void settle() {
    for (const Op& op : ops_) {
      const Request& r = *op.request;
      if (r.kind() == Request::Kind::recv && r.state() == Request::State::done) FUZZ_CHECK(r.bytes() <= r.capacity());
      if (peer_.state() == tcp::Peer::State::failed) FUZZ_CHECK(!r.pending());
    }
    if (!sockets_.far.valid()) return;
    try {
      far_rx_.pump(sockets_.far.get(), far_);
    } catch (const tcp::ProtocolError&) {
      FUZZ_CHECK(!"the peer sent a malformed frame");
    }
  }

  rcoll::fuzz::SocketPair sockets_ = rcoll::fuzz::SocketPair::make();
  std::deque<Op> ops_;  // before peer_: buffers outlive it
  tcp::Poller poller_;
  tcp::Peer peer_;
  FarSink far_;
  tcp::RxStream far_rx_;
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rcoll::fuzz::init_process();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rcoll::fuzz::Input input(data, size);
  Harness harness;
  while (!input.empty()) {
    std::uint8_t op = input.u8();
    switch (op % 8) {
      case 0: harness.post_recv(op >> 3 & 3, input.u16() % 2048); break;
      case 1: harness.post_send(op >> 3 & 3, input.u16() % 1024); break;
      case 2: harness.cancel(op >> 3); break;
      case 3: harness.hang_up(); return 0;
      default: harness.write(input.bytes(input.u16() % 4096)); break;
    }
  }
  return 0;
}
