// The sending half of the rendezvous protocol towards one peer
// (docs/PROTOCOLS.md): an RTS now; the payload, straight from the user
// buffer, once the receiver's CTS clears it; nothing if the receiver
// dropped the message (CTS with `discard`), and an empty withdrawn DATA if
// the send was cancelled meanwhile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "transport/tcp/connection.hpp"

namespace rcoll::transport::tcp {

class RendezvousSender {
 public:
  explicit RendezvousSender(Connection& connection) : connection_(connection) {}

  // Queues the RTS. The data stays in the user buffer until the CTS.
  void send(const RequestPtr& request, const std::byte* buf, std::size_t bytes);
  // Throws ProtocolError for a CTS that answers no RTS of ours.
  void on_cts(const FrameHeader& header);
  // The peer failed: hands over the sends awaiting their CTS.
  void take_pending(std::vector<RequestPtr>& out);

 private:
  struct Send {
    RequestPtr request;
    const std::byte* buf;
    std::size_t bytes;
  };

  Connection& connection_;
  std::unordered_map<std::uint64_t, Send> sends_;  // RTS sent, by message id
  std::uint64_t next_id_ = 1;
};

}  // namespace rcoll::transport::tcp
