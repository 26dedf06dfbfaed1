#include "transport/tcp/peer.hpp"

#include <utility>

#include "common/log.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::transport::tcp {
namespace {

std::string step_of(const Request& request) {
  // No tag: the caller's step names the call (comm/tags.hpp's encoding means nothing to a reader).
  return request.kind() == Request::Kind::send ? "tcp send" : "tcp recv";
}

}  // namespace

std::string_view to_string(Peer::State state) noexcept {
  switch (state) {
    case Peer::State::unconnected: return "unconnected";
    case Peer::State::ready: return "ready";
    case Peer::State::failed: return "failed";
  }
  return "?";
}

Peer::Peer(int self, int rank, std::size_t eager_limit, Poller& poller, CreditLimits credit,
           SendBuffer send_buffer)
    : self_(self),
      rank_(rank),
      connection_(self, rank, poller, std::move(send_buffer)),
      eager_(eager_limit, credit, connection_, matching_, ReceiveSide{"tcp", self, rank}),
      rendezvous_out_(connection_),
      rendezvous_in_(connection_, matching_, ReceiveSide{"tcp", self, rank}) {}

void Peer::post_send(const RequestPtr& request, const void* buf, std::size_t bytes) {
  if (rank_ == self_) return eager_.send_to_self(request, buf, bytes);
  if (!eager_.try_send(request, buf, bytes))
    rendezvous_out_.send(request, static_cast<const std::byte*>(buf), bytes);
  flush();
}

void Peer::post_recv(const RequestPtr& request, void* buf, std::size_t capacity) {
  PostedReceive receive{request, static_cast<std::byte*>(buf), capacity};
  UnexpectedMessage message;
  if (matching_.take_unexpected(request->tag(), message)) {
    if (message.rts)
      rendezvous_in_.accept(request->tag(), message, receive);
    else
      eager_.deliver_stored(message, receive);
    flush();  // a CTS, or a CREDIT frame
    return;
  }
  if (state_ == State::failed) return fail_request(*request);
  matching_.post(std::move(receive));
}

void Peer::cancel(Request& request) {
  if (request.kind() == Request::Kind::recv) {
    matching_.withdraw(request);
    if (eager_.reading_into(request) || rendezvous_in_.reading_into(request)) connection_.discard_rest();
  } else {
    eager_.refund(connection_.withdraw(request));  // credited payloads that now never leave
  }
  // A rendezvous in progress checks pending() before touching a buffer, so
  // it needs no change here.
  request.mark_cancelled();
}

void Peer::fail_request(Request& request) const {
  request.fail(std::make_exception_ptr(IoError(self_, rank_, step_of(request), cause_)));
}

void Peer::attach(UniqueFd fd) {
  connection_.attach(std::move(fd));
  state_ = State::ready;
  log::debug("rank {}: tcp connection to rank {} ({}) ready", self_, rank_, connection_.where());
  flush();
}

std::byte* Peer::on_frame(const FrameHeader& header) {
  switch (header.type) {
    case FrameType::eager: reading_ = Reading::eager; return eager_.on_eager(header);
    case FrameType::rts: rendezvous_in_.on_rts(header); return nullptr;
    case FrameType::cts: rendezvous_out_.on_cts(header); return nullptr;
    case FrameType::data: reading_ = Reading::data; return rendezvous_in_.on_data(header);
    case FrameType::credit: eager_.on_credit(header); return nullptr;
  }
  throw ProtocolError("unknown frame type " + std::to_string(static_cast<int>(header.type)));
}

void Peer::on_payload_done() {
  if (std::exchange(reading_, Reading::nothing) == Reading::eager)
    eager_.on_payload_done();
  else
    rendezvous_in_.on_payload_done();
}

bool Peer::on_events(std::uint32_t events) {
  if (state_ != State::ready) return false;
  bool moved = false;
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
    moved = read();
    if (state_ != State::ready) return true;
  }
  // Frames handling may have queued CTS/DATA/CREDIT; send them now.
  if (!connection_.idle()) moved = flush() || moved;
  return moved;
}

// Reads what the socket has and handles its frames; fails the peer on a
// protocol violation, a socket error or EOF.
bool Peer::read() {
  RxStream::PumpResult result;
  try {
    result = connection_.pump(*this);
  } catch (const ProtocolError& e) {
    fail(std::string("protocol error: ") + e.what());
    return true;
  }
  log::trace("rank {}: tcp rank {} rx {}", self_, rank_, to_string(connection_.rx_state()));
  if (result.error != 0 || result.closed)
    fail(result.closed ? "peer closed the connection" : "recv: " + net::errno_text(result.error));
  return result.progressed;
}

// Writes what the socket takes. Returns true if bytes were written.
bool Peer::flush() {
  if (state_ != State::ready) return false;
  SendQueue::FlushResult result = connection_.flush();
  if (result.error != 0) {
    fail("send: " + net::errno_text(result.error));
    return true;
  }
  return result.progressed;
}

std::vector<RequestPtr> Peer::take_pending() {
  std::vector<RequestPtr> pending = connection_.close();
  // Complete eager messages stay matchable: a peer that sent its last message
  // and exited has done nothing wrong, and a receive posted later must get it.
  // An RTS is dropped: its data never comes now.
  matching_.fail_all([&](PostedReceive& receive) { pending.push_back(std::move(receive.request)); },
                     [](const UnexpectedMessage& message) { return message.rts; });
  rendezvous_out_.take_pending(pending);
  rendezvous_in_.take_pending(pending);
  eager_.take_pending(pending);
  reading_ = Reading::nothing;
  return pending;
}

void Peer::fail(const std::string& cause) {
  if (state_ == State::failed) return;
  state_ = State::failed;
  cause_ = "connection to rank " + std::to_string(rank_) + " (" + connection_.where() + "): " + cause;
  std::size_t failed = 0;
  for (auto& request : take_pending()) {
    if (!request || !request->pending()) continue;
    fail_request(*request);
    ++failed;
  }
  // A peer that leaves with nothing pending may simply have finished first;
  // it becomes an error only if this rank talks to it again.
  if (failed > 0)
    log::warn("rank {}: {} ({} pending requests failed)", self_, cause_, failed);
  else
    log::debug("rank {}: {}", self_, cause_);
}

}  // namespace rcoll::transport::tcp
