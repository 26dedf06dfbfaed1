// Worlds of transports for tests: every rank's transport of one backend,
// created in this process and wired to each other, so ranks can run as
// threads (run_ranks.hpp). Each transport is then driven by one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transport/transport.hpp"

namespace rcoll::test {

struct TransportWorld {
  std::shared_ptr<void> keep_alive;  // state the transports share (the inproc fabric)
  std::vector<std::unique_ptr<transport::Transport>> ranks;

  transport::Transport& at(int rank) { return *ranks[static_cast<std::size_t>(rank)]; }
};

// The backends every contract test runs on: "inproc", "tcp".
std::vector<std::string> transport_backends();

// `size` ranks of `backend`. For "tcp": listening on 127.0.0.1, endpoints
// exchanged in memory (as the bootstrap would), connect timeout 5 s.
TransportWorld make_transport_world(const std::string& backend, int size);

}  // namespace rcoll::test
