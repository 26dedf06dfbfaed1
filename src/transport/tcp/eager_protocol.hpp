// The eager protocol towards one peer (docs/PROTOCOLS.md): a message of at
// most the free eager limit always goes as one EAGER frame, and a larger one
// up to the credited limit too while the sender has the credit for it
// (credit_window.hpp); everything else is the rendezvous's.
//
// Receiving: an EAGER payload is read straight into the oldest receive
// posted for its tag, or else stored (pooled blocks) as an unexpected
// message until a receive matches it; a receive posted while the payload
// is still arriving gets it when the last byte is in.
#pragma once

#include <cstddef>
#include <vector>

#include "transport/buffer_pool.hpp"
#include "transport/tcp/connection.hpp"
#include "transport/tcp/credit_window.hpp"
#include "transport/tcp/unexpected_message.hpp"

namespace rcoll::transport::tcp {

class EagerProtocol {
 public:
  // `side`: the receiving rank and the peer, for errors.
  EagerProtocol(std::size_t eager_limit, CreditLimits credit, Connection& connection, Matching& matching,
                ReceiveSide side);

  // --- sending
  // Queues the message as an EAGER frame if it may go eagerly; false: it
  // must go by rendezvous.
  bool try_send(const RequestPtr& request, const void* buf, std::size_t bytes);
  // A send to this rank itself: copied into a posted receive, or stored.
  void send_to_self(const RequestPtr& request, const void* buf, std::size_t bytes);
  // Credit of cancelled credited sends that never left.
  void refund(std::size_t credit) noexcept { credit_.refund(credit); }
  void on_credit(const FrameHeader& header) { credit_.on_credit(header.length); }

  // --- receiving
  // An EAGER header arrived: where its payload goes (nullptr: nowhere).
  // Throws ProtocolError for a credited payload beyond the window.
  std::byte* on_eager(const FrameHeader& header);
  void on_payload_done();
  // Serves a stored message to the receive that matched it.
  void deliver_stored(UnexpectedMessage& message, const PostedReceive& receive);
  // True while the payload being read goes into `request`'s buffer.
  bool reading_into(const Request& request) const noexcept { return inbound_.request.get() == &request; }
  // The peer failed: hands over the receive being filled, if any, and drops
  // a payload stored only in part.
  void take_pending(std::vector<RequestPtr>& out);

 private:
  // The payload the stream is reading.
  struct Inbound {
    RequestPtr request;  // the posted receive it goes straight into, if any
    Tag tag = 0;
    std::size_t length = 0;
    std::size_t credited = 0;  // credit it holds
    bool stored = false;       // into stored_, for a receive not posted yet
  };

  // A stored payload is done with: its block goes back to the pool, its credit to the sender.
  void release(BufferPool::Block&& payload, std::size_t length, std::size_t credited);
  void give_back(std::size_t credit);
  // The pool of blocks for payloads of `bytes`: credited ones (above the
  // free eager limit) have their own, of the credited limit's size.
  BufferPool& pool_for(std::size_t bytes) noexcept;

  std::size_t eager_limit_;
  CreditWindow credit_;
  Connection& connection_;
  Matching& matching_;
  ReceiveSide side_;
  BufferPool pool_;           // payloads up to the free eager limit
  BufferPool credited_pool_;  // credited payloads, up to credit.eager
  Inbound inbound_;
  BufferPool::Block stored_;  // inbound_'s payload when it is stored
};

}  // namespace rcoll::transport::tcp
