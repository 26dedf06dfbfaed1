// The operation records of Peer, shared by peer*.cpp only.
#pragma once

#include "transport/rdma/peer.hpp"

namespace rcoll::transport::rdma {

struct Peer::SendOp {
  RequestPtr request;
  std::uint32_t id = 0;
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

struct Peer::RecvOp {
  RequestPtr request;
  std::uint32_t id = 0;
  Tag tag = 0;
  std::byte* buf = nullptr;
  std::size_t capacity = 0;
  RecvState state = RecvState::posted;
  std::uint64_t length = 0;
  std::uint32_t send_id = 0;
  MrCache::Lease mr;
};

}  // namespace rcoll::transport::rdma
