// The keep-alive of one connection (docs/RDMA.md, "Errors"). A peer we wait
// for but do not hear from may be dead, and on the bootstrap path nothing
// else would tell us (rdma_cm reports DISCONNECTED; a send of ours would run
// out of retries, but a receiver awaiting data sends nothing). So after
// keepalive_interval of silence with operations pending, ask the peer's
// device for an ACK (Channel::probe). A live peer's device answers even
// while its process computes; a dead one's QP is gone and the probe's
// failed completion fails the peer.
#pragma once

#include <chrono>

#include "transport/rdma/core.hpp"

namespace rcoll::transport::rdma {

class KeepAlive {
 public:
  KeepAlive(Core& core, int peer) : core_(core), peer_(peer) {}

  // True every check_every-th call: time to look whether a probe is due.
  // The keep-alive interval is hundreds of milliseconds and a clock read is
  // not free; this runs for every peer in every progress call.
  bool check_due() noexcept { return ++calls_ % check_every == 0; }
  void on_connected() noexcept { heard_ = std::chrono::steady_clock::now(); }
  // A completion came from the peer.
  void heard() noexcept { heard_since_check_ = true; }
  void on_probe_done() noexcept { probing_ = false; }
  // Probes the peer if `waiting` (operations pending) and it has been quiet.
  void probe_if_quiet(Channel& channel, bool waiting);

 private:
  static constexpr unsigned check_every = 64;

  Core& core_;
  int peer_;
  unsigned calls_ = 0;
  std::chrono::steady_clock::time_point heard_{};  // last completion seen by probe_if_quiet
  bool heard_since_check_ = false;                 // a completion since probe_if_quiet last read the clock
  bool probing_ = false;                           // a probe is in flight
};

}  // namespace rcoll::transport::rdma
