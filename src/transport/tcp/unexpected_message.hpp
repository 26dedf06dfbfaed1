// What a tcp::Peer keeps of a message that arrived before its receive was
// posted (matched by transport/matching/match_queue.hpp). An EAGER payload
// is stored whole (copied once when a receive matches); an RTS is only
// remembered, its data stays with the sender until a receive clears it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "transport/buffer_pool.hpp"
#include "transport/matching/match_queue.hpp"

namespace rcoll::transport::tcp {

struct UnexpectedMessage {
  bool rts = false;
  std::size_t length = 0;       // message bytes
  std::uint64_t id = 0;         // RTS: the sender's message id
  BufferPool::Block payload{};  // EAGER: the whole payload
  std::size_t credited = 0;     // EAGER: credit to give back when it is released
};

using Matching = MatchQueue<UnexpectedMessage>;

}  // namespace rcoll::transport::tcp
