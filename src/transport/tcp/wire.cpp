#include "transport/tcp/wire.hpp"

namespace rcoll::transport::tcp {

std::string_view to_string(RefuseReason reason) noexcept {
  switch (reason) {
    case RefuseReason::none: return "no reason";
    case RefuseReason::bad_version: return "wire protocol magic or version mismatch";
    case RefuseReason::bad_token: return "job token mismatch";
    case RefuseReason::bad_size: return "world size mismatch";
    case RefuseReason::bad_rank: return "rank out of range or the acceptor's own";
    case RefuseReason::duplicate: return "that rank is already connected or connecting";
    case RefuseReason::peer_failed: return "the acceptor's connection to that rank already failed";
  }
  return "unknown reason";
}

std::string_view to_string(FrameType type) noexcept {
  switch (type) {
    case FrameType::eager: return "EAGER";
    case FrameType::rts: return "RTS";
    case FrameType::cts: return "CTS";
    case FrameType::data: return "DATA";
  }
  return "?";
}

}  // namespace rcoll::transport::tcp
