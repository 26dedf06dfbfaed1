#include "transport/tcp/rendezvous_sender.hpp"

#include <string>

namespace rcoll::transport::tcp {

void RendezvousSender::send(const RequestPtr& request, const std::byte* buf, std::size_t bytes) {
  const std::uint64_t id = next_id_++;
  sends_.emplace(id, Send{request, buf, bytes});
  connection_.push_control(FrameType::rts, request->tag(), bytes, id);
}

void RendezvousSender::on_cts(const FrameHeader& header) {
  auto it = sends_.find(header.id);
  if (it == sends_.end())
    throw ProtocolError("CTS for unknown message id " + std::to_string(header.id));
  Send send = std::move(it->second);
  sends_.erase(it);
  if (header.flags & flag_discard) {
    if (send.request->pending()) send.request->complete(send.bytes);
  } else if (!send.request->pending()) {
    connection_.push_control(FrameType::data, header.tag, 0, header.id, flag_withdrawn);
  } else {
    FrameHeader data;
    data.type = FrameType::data;
    data.tag = header.tag;
    data.length = send.bytes;
    data.id = header.id;
    connection_.push(data, send.buf, send.bytes, {send.request, 0});
  }
}

void RendezvousSender::take_pending(std::vector<RequestPtr>& out) {
  for (auto& [id, send] : sends_) out.push_back(std::move(send.request));
  sends_.clear();
}

}  // namespace rcoll::transport::tcp
