// Ranks as threads of one test process, each with its own RDMA transport on
// the (Soft-RoCE) device, joined through the in-memory bootstrap. Shared by
// the tests/unit/rdma_*_test.cpp files.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/in_memory.hpp"
#include "comm/environment.hpp"
#include "common/deadline.hpp"
#include "support/run_ranks.hpp"
#include "transport/rdma/rdma_transport.hpp"
#include "transport/wait.hpp"

// Outside the Soft-RoCE guest (or any RDMA host) the tests skip, saying why.
#define RCOLL_REQUIRE_RDMA()                                                                              \
  do {                                                                                                    \
    if (std::string why = ::rcoll::transport::rdma_unavailable_reason(::rcoll::comm::rdma_options_from_env()); !why.empty())                   \
      GTEST_SKIP() << "no RDMA device: run ctest -L rdma to run this in the Soft-RoCE guest (" << why << ")"; \
  } while (0)

namespace rcoll::test {

using namespace std::chrono_literals;
using Bytes = std::vector<std::uint8_t>;

struct RdmaWorld {
  std::unique_ptr<bootstrap::InMemoryRendezvous> rendezvous;
  std::vector<std::unique_ptr<bootstrap::Bootstrap>> bootstraps;  // outlive the transports
  std::vector<std::unique_ptr<transport::Transport>> ranks;

  transport::Transport& at(int rank) { return *ranks[static_cast<std::size_t>(rank)]; }
};

// Options for tests: small chunks, so that a few hundred KiB make a
// multi-chunk rendezvous (TCG-emulated Soft-RoCE moves tens of MB/s).
inline transport::rdma::RdmaOptions test_options() {
  transport::rdma::RdmaOptions options;
  options.chunk_bytes = 64 * 1024;
  options.discovery_interval = 5ms;
  return options;
}

inline RdmaWorld make_rdma_world(int size, const transport::rdma::RdmaOptions& options,
                                 std::chrono::milliseconds connect_timeout = 30s) {
  RdmaWorld world;
  world.rendezvous = std::make_unique<bootstrap::InMemoryRendezvous>(size);
  world.bootstraps.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    transport::TransportConfig config;
    config.rank = r;
    config.size = size;
    config.job_token = "rdma-test";
    config.connect_timeout = connect_timeout;
    world.ranks.push_back(transport::make_rdma_transport(config, options));
  }
  run_ranks(size, [&](int r) {
    auto& slot = world.bootstraps[static_cast<std::size_t>(r)];
    slot = world.rendezvous->join(r, world.at(r).local_endpoint(), Deadline::after(30s));
  });
  for (int r = 0; r < size; ++r) {
    world.at(r).attach_store(*world.bootstraps[static_cast<std::size_t>(r)]);
    world.at(r).set_peer_endpoints(world.bootstraps[static_cast<std::size_t>(r)]->members());
  }
  return world;
}

inline Deadline soon() { return Deadline::after(60s); }

// Never zero, so a byte the transport wrote differs from a zeroed buffer.
inline Bytes pattern(std::size_t n, std::uint32_t seed) {
  Bytes data(n);
  for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<std::uint8_t>(1 + (i * 131 + seed * 7 + (i >> 9)) % 251);
  return data;
}

inline void send(transport::Transport& t, int peer, transport::Tag tag, const void* data, std::size_t bytes) {
  transport::wait(t, t.isend(peer, tag, data, bytes), soon(), "test send");
}
inline void send(transport::Transport& t, int peer, transport::Tag tag, const Bytes& data) {
  send(t, peer, tag, data.data(), data.size());
}

inline Bytes recv(transport::Transport& t, int peer, transport::Tag tag, std::size_t capacity) {
  Bytes data(capacity);
  auto request = t.irecv(peer, tag, data.data(), data.size());
  transport::wait(t, request, soon(), "test recv");
  data.resize(request->bytes());
  return data;
}

// Lets the transport handle whatever arrives, with no request to wait on.
inline void pump_for(transport::Transport& t, std::chrono::milliseconds span) {
  auto deadline = Deadline::after(span);
  while (!deadline.expired())
    if (!t.progress()) t.wait_for_activity(1ms);
}

}  // namespace rcoll::test
