// Worlds of transports for tests: every rank's transport of one backend,
// created in this process and wired to each other, so ranks can run as
// threads (run_ranks.hpp). Each transport is then driven by one thread.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <cstdint>
#include <vector>

#include "common/deadline.hpp"
#include "transport/transport.hpp"

namespace rcoll::test {

struct TransportWorld {
  // State the transports share and that must outlive them (the inproc
  // fabric; the bootstraps of RDMA ranks). Declared first: destroyed last.
  std::shared_ptr<void> keep_alive;
  std::vector<std::unique_ptr<transport::Transport>> ranks;

  transport::Transport& at(int rank) { return *ranks[static_cast<std::size_t>(rank)]; }
};

// The backends every contract test runs on: "inproc", "tcp", and the RDMA
// backend in each way of connecting and waiting: "rdma" (connections
// through bootstrap keys, auto polling: the defaults), "rdma_busy",
// "rdma_event", "rdma_rdmacm" (librdmacm connections, auto polling).
std::vector<std::string> transport_backends();

bool is_rdma_backend(const std::string& backend);

// Empty when `backend` can run on this machine; else why not, in one line.
// RDMA backends need a device with an ACTIVE port; the reason then starts
// with "no RDMA device:" (tests/rdma/guest-suite.sh fails on such skips in
// the Soft-RoCE guest, where the device must exist).
std::string backend_unavailable_reason(const std::string& backend);

// `size` ranks of `backend`. "tcp": listening on 127.0.0.1, endpoints
// exchanged in memory (as the bootstrap would), connect timeout 5 s.
// RDMA: one transport per rank on the first active device (RCOLL_IB_* are
// honoured), joined through the in-memory bootstrap, 64 KiB rendezvous
// chunks (so a few hundred KiB take several), connect timeout 30 s.
TransportWorld make_transport_world(const std::string& backend, int size);

// One blocking send or receive of a byte vector, for tests: waits until
// done or `deadline` (the transport's IoError or TimeoutError propagates);
// the received vector has the message's length.
using Bytes = std::vector<std::uint8_t>;
void send_bytes(transport::Transport& t, int peer, transport::Tag tag, const Bytes& data, Deadline deadline);
Bytes recv_bytes(transport::Transport& t, int peer, transport::Tag tag, std::size_t capacity, Deadline deadline);

}  // namespace rcoll::test

// Skips the current test, saying why, when `backend` cannot run here
// (no RDMA device outside the Soft-RoCE guest: `ctest -L rdma` runs them).
#define RCOLL_SKIP_UNLESS_AVAILABLE(backend)                                                       \
  do {                                                                                             \
    if (std::string rcoll_why_ = ::rcoll::test::backend_unavailable_reason(backend); !rcoll_why_.empty()) \
      GTEST_SKIP() << rcoll_why_;                                                                  \
  } while (0)

namespace rcoll::test {

// A parameterized suite whose parameter is a backend name, or a tuple that
// starts with one: each test skips where its backend cannot run.
template <typename Param>
class OnBackend : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    if constexpr (std::is_convertible_v<Param, std::string>) RCOLL_SKIP_UNLESS_AVAILABLE(this->GetParam());
    else RCOLL_SKIP_UNLESS_AVAILABLE(std::get<0>(this->GetParam()));
  }
};

}  // namespace rcoll::test
