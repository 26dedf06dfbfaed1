// What an rdma::Peer keeps of a message that arrived before its receive was
// posted (matched by transport/matching/match_queue.hpp): an eager payload
// copied out of its ring slot (which is reposted at once), or an RTS, kept
// as {length, send_id} until a receive clears it.
#pragma once

#include <cstdint>

#include "transport/buffer_pool.hpp"
#include "transport/matching/match_queue.hpp"

namespace rcoll::transport::rdma {

struct UnexpectedMessage {
  bool rts = false;
  std::uint64_t length = 0;     // eager: payload bytes; RTS: message bytes
  std::uint32_t send_id = 0;    // RTS
  BufferPool::Block payload{};  // eager
};

using Matching = MatchQueue<UnexpectedMessage>;

}  // namespace rcoll::transport::rdma
