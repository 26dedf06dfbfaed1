// A send that could not complete when it was made: queued behind earlier
// messages (Peer's outbox), then, for a rendezvous, its RTS, CTS and writes
// (RendezvousSender). States, as in trace logs:
//   queued -> (eager: posted, done)
//   queued -> awaiting_cts -> writing -> (last write done: done)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "transport/rdma/mr_cache.hpp"
#include "transport/request.hpp"

namespace rcoll::transport::rdma {

enum class SendState : std::uint8_t { queued, awaiting_cts, writing };

inline std::string_view state_name(SendState state) noexcept {
  switch (state) {
    case SendState::queued: return "queued";
    case SendState::awaiting_cts: return "awaiting_cts";
    case SendState::writing: return "writing";
  }
  return "?";
}

struct SendOp {
  RequestPtr request;
  std::uint32_t id = 0;  // rendezvous: the send_id of its RTS
  Tag tag = 0;
  const std::byte* buf = nullptr;
  std::size_t bytes = 0;
  SendState state = SendState::queued;
  // rendezvous, from the CTS
  std::uint64_t remote_addr = 0;
  std::uint32_t rkey = 0;
  std::uint32_t recv_id = 0;
  MrCache::Lease mr;
  std::size_t posted = 0;     // bytes covered by posted writes
  int in_flight = 0;          // writes posted and not completed
  bool final_posted = false;  // the WRITE_WITH_IMM is out
  bool stop = false;          // post no more chunks (receiver aborted, or we were cancelled)
  bool send_abort = false;    // after stopping, tell the receiver with SEND_ABORT (we were cancelled)
};

}  // namespace rcoll::transport::rdma
