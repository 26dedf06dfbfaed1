#include "transport/tcp/eager_protocol.hpp"

#include <algorithm>
#include <utility>

namespace rcoll::transport::tcp {
namespace {

// Idle unexpected-message blocks kept per peer: 16 x 64 KiB = 1 MiB at
// most for messages up to the free eager limit, and for credited ones a
// quarter of the credit window (at most 4 blocks; at least 1 so that a
// stream of them never mallocs). Without the second pool every unexpected
// credited payload (up to 256 KiB) came from malloc, whose heap trimming
// gave the pages back after each one: about 64 page faults per message,
// 10 % of a 512 KiB reduce root's samples in perf.
constexpr std::size_t pooled_blocks = 16;
constexpr std::size_t max_pooled_credited_blocks = 4;

std::size_t pooled_credited_blocks(CreditLimits credit) {
  if (credit.eager == 0) return 0;
  return std::clamp<std::size_t>(credit.window / 4 / credit.eager, 1, max_pooled_credited_blocks);
}

}  // namespace

EagerProtocol::EagerProtocol(std::size_t eager_limit, CreditLimits credit, Connection& connection,
                             Matching& matching, ReceiveSide side)
    : eager_limit_(eager_limit),
      credit_(credit),
      connection_(connection),
      matching_(matching),
      side_(side),
      pool_(eager_limit, pooled_blocks),
      credited_pool_(credit.eager, pooled_credited_blocks(credit)) {}

bool EagerProtocol::try_send(const RequestPtr& request, const void* buf, std::size_t bytes) {
  const std::size_t credit = bytes > eager_limit_ ? bytes : 0;
  if (credit > 0 && !credit_.try_spend(credit)) return false;
  FrameHeader header;
  header.type = FrameType::eager;
  header.tag = request->tag();
  header.length = bytes;
  connection_.push(header, buf, bytes, {request, credit});
  return true;
}

void EagerProtocol::send_to_self(const RequestPtr& request, const void* buf, std::size_t bytes) {
  auto data = static_cast<const std::byte*>(buf);
  PostedReceive receive;
  if (matching_.take_posted(request->tag(), receive))
    deliver(receive, data, bytes, side_);
  else
    matching_.keep(request->tag(), UnexpectedMessage{.length = bytes, .payload = pool_for(bytes).copy(data, bytes)});
  request->complete(bytes);
}

std::byte* EagerProtocol::on_eager(const FrameHeader& header) {
  const std::size_t credited = header.length > eager_limit_ ? credit_.hold(header.length, "EAGER frame") : 0;
  const auto length = static_cast<std::size_t>(header.length);
  inbound_ = Inbound{nullptr, header.tag, length, credited, false};
  PostedReceive receive;
  if (!matching_.take_posted(header.tag, receive)) {
    inbound_.stored = true;
    stored_ = pool_for(length).take(length);
    return stored_.get();
  }
  if (!receive.fits(length)) {  // read into nowhere
    receive.request->fail(truncation_error(side_, length, receive.capacity));
    return nullptr;
  }
  inbound_.request = std::move(receive.request);
  return receive.buf;
}

void EagerProtocol::on_payload_done() {
  Inbound done = std::move(inbound_);
  inbound_ = Inbound{};
  if (!done.stored) {  // read into its receive, or into nowhere (truncated, cancelled)
    if (done.request && done.request->pending()) done.request->complete(done.length);
    return give_back(done.credited);
  }
  PostedReceive receive;
  if (!matching_.take_posted(done.tag, receive)) {
    UnexpectedMessage message{.length = done.length, .payload = std::move(stored_), .credited = done.credited};
    return matching_.keep(done.tag, std::move(message));
  }
  deliver(receive, stored_.get(), done.length, side_);  // posted while the payload arrived
  release(std::move(stored_), done.length, done.credited);
}

void EagerProtocol::deliver_stored(UnexpectedMessage& message, const PostedReceive& receive) {
  deliver(receive, message.payload.get(), message.length, side_);
  release(std::move(message.payload), message.length, message.credited);
}

void EagerProtocol::release(BufferPool::Block&& payload, std::size_t length, std::size_t credited) {
  pool_for(length).put(std::move(payload), length);
  give_back(credited);
}

BufferPool& EagerProtocol::pool_for(std::size_t bytes) noexcept {
  return bytes > eager_limit_ ? credited_pool_ : pool_;
}

void EagerProtocol::take_pending(std::vector<RequestPtr>& out) {
  if (inbound_.request) out.push_back(std::move(inbound_.request));
  inbound_ = Inbound{};
  stored_ = {};
}

// The caller flushes the CREDIT frame this may queue. Nothing is handed
// back on a connection that is gone.
void EagerProtocol::give_back(std::size_t credit) {
  if (credit == 0 || !connection_.open()) return;
  if (std::size_t now = credit_.release(credit)) connection_.push_control(FrameType::credit, 0, now, 0);
}

}  // namespace rcoll::transport::tcp
