// A receive in the rendezvous (RendezvousReceiver), from the CTS that clears
// its message to come until the peer's last write. States, as in trace logs
// (a receive is "posted" while it waits in the matching):
//   posted -> cts_queued -> awaiting_data -> (WRITE_WITH_IMM: done)
//   after a cancel with the CTS out: draining, until the peer's final
//   WRITE_WITH_IMM or SEND_ABORT says no more bytes will land in the buffer.
#pragma once

#include <cstdint>
#include <string_view>

#include "transport/matching/posted_receive.hpp"
#include "transport/rdma/mr_cache.hpp"

namespace rcoll::transport::rdma {

enum class RecvState : std::uint8_t { cts_queued, awaiting_data, draining };

inline std::string_view state_name(RecvState state) noexcept {
  switch (state) {
    case RecvState::cts_queued: return "cts_queued";
    case RecvState::awaiting_data: return "awaiting_data";
    case RecvState::draining: return "draining";
  }
  return "?";
}

struct RecvOp {
  PostedReceive receive;
  std::uint32_t id = 0;  // the recv_id of its CTS, and the immediate of the last write
  RecvState state = RecvState::cts_queued;
  std::uint64_t length = 0;
  std::uint32_t send_id = 0;
  MrCache::Lease mr;  // exactly the message's bytes of the buffer, for remote write
};

}  // namespace rcoll::transport::rdma
