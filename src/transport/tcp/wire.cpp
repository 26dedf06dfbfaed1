#include "transport/tcp/wire.hpp"

#include <algorithm>

namespace rcoll::transport::tcp {
namespace {

// A message above the free eager limit that does not go EAGER goes by
// rendezvous, one round trip more, which made a message just above the
// limit several times slower than one at it when every such message went
// that way. The window is what each rank lets each peer park in it
// unexpectedly: up to 4 MiB, and less in large jobs so that all peers
// together stay within credit_budget. Credited EAGER messages go up to a
// quarter window, at most 256 KiB: an EAGER message that lands before its
// receive costs a copy, and larger credited messages halved large
// allreduces' bandwidth (docs/results/PERFORMANCE_LOG.md, "Across the
// eager limit").
constexpr std::size_t max_credited_eager = 256u << 10;
constexpr std::size_t max_credit_window = 4u << 20;
constexpr std::size_t min_credit_window = 256u << 10;
constexpr std::size_t credit_budget = 64u << 20;

}  // namespace

std::size_t credit_window(int world_size) noexcept {
  const std::size_t peers = static_cast<std::size_t>(std::max(world_size - 1, 1));
  return std::clamp(credit_budget / peers, min_credit_window, max_credit_window);
}

std::size_t credited_eager_limit(int world_size) noexcept {
  return std::min(credit_window(world_size) / 4, max_credited_eager);
}

std::string_view to_string(RefuseReason reason) noexcept {
  switch (reason) {
    case RefuseReason::none: return "no reason";
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
    case FrameType::credit: return "CREDIT";
  }
  return "?";
}

}  // namespace rcoll::transport::tcp
