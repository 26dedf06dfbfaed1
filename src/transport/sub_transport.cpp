#include "transport/sub_transport.hpp"

#include <algorithm>
#include <stdexcept>

namespace rcoll::transport {

SubTransport::SubTransport(std::shared_ptr<Transport> base, std::vector<int> members, int rank, Tag tag_bits)
    : base_(std::move(base)), members_(std::move(members)), rank_(rank), tag_bits_(tag_bits) {}

void SubTransport::set_peer_endpoints(std::vector<PeerEndpoint>) {
  throw std::logic_error("a sub-transport uses its base's endpoints; it is never joined on its own");
}

RequestPtr SubTransport::isend(int peer, Tag tag, const void* buf, std::size_t bytes) {
  return base_->isend(base_rank(peer), tag | tag_bits_, buf, bytes);
}

RequestPtr SubTransport::irecv(int peer, Tag tag, void* buf, std::size_t capacity) {
  return base_->irecv(base_rank(peer), tag | tag_bits_, buf, capacity);
}

int SubTransport::own_rank(int base) const {
  auto it = std::find(members_.begin(), members_.end(), base);
  return it == members_.end() ? -1 : static_cast<int>(it - members_.begin());
}

}  // namespace rcoll::transport
