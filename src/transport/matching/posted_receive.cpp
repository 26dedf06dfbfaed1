#include "transport/matching/posted_receive.hpp"

#include <cstring>
#include <string>

#include "transport/truncation.hpp"

namespace rcoll::transport {

std::exception_ptr truncation_error(const ReceiveSide& side, std::uint64_t length, std::size_t capacity) {
  return std::make_exception_ptr(
      TruncationError(side.rank, side.peer, std::string(side.transport) + " recv", length, capacity));
}

void deliver(const PostedReceive& receive, const std::byte* data, std::size_t length, const ReceiveSide& side) {
  Request& request = *receive.request;
  if (!receive.fits(length)) return request.fail(truncation_error(side, length, receive.capacity));
  if (length > 0) std::memcpy(receive.buf, data, length);
  request.complete(length);
}

}  // namespace rcoll::transport
