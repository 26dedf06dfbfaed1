// The receiving half of the rendezvous protocol towards one peer
// (docs/PROTOCOLS.md): an RTS is matched to the oldest receive posted for
// its tag, or remembered as an unexpected message until a receive matches
// it; a matched message is cleared to come (CTS) and its DATA is read
// straight into the receive's buffer. A message that does not fit fails its
// receive and is refused (CTS with `discard`): no payload crosses the wire.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "transport/tcp/connection.hpp"
#include "transport/tcp/unexpected_message.hpp"

namespace rcoll::transport::tcp {

class RendezvousReceiver {
 public:
  // `side`: the receiving rank and the peer, for errors.
  RendezvousReceiver(Connection& connection, Matching& matching, ReceiveSide side)
      : connection_(connection), matching_(matching), side_(side) {}

  // Throws ProtocolError for an RTS reusing the id of a message in progress.
  void on_rts(const FrameHeader& header);
  // A receive matched the RTS of `message`: clears it to come, or refuses it.
  void accept(Tag tag, const UnexpectedMessage& message, const PostedReceive& receive);
  // A DATA header: where its payload goes (nullptr: nowhere). Throws
  // ProtocolError for a DATA frame that answers no CTS of ours, or whose
  // length is not the message's.
  std::byte* on_data(const FrameHeader& header);
  void on_payload_done();
  // True while the payload being read goes into `request`'s buffer.
  bool reading_into(const Request& request) const noexcept { return reading_.get() == &request; }
  // The peer failed: hands over the receives that were cleared to come.
  void take_pending(std::vector<RequestPtr>& out);

 private:
  struct Cleared {
    RequestPtr request;
    std::byte* buf;
    std::size_t length;
  };

  void check_data(const FrameHeader& header, const Cleared& cleared) const;

  Connection& connection_;
  Matching& matching_;
  ReceiveSide side_;
  std::unordered_map<std::uint64_t, Cleared> cleared_;  // CTS sent, waiting for DATA, by message id
  RequestPtr reading_;  // the receive whose DATA payload the stream is reading
  std::size_t reading_length_ = 0;
};

}  // namespace rcoll::transport::tcp
