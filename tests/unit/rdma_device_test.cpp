// Device, port and GID selection: by IPv4 address (RCOLL_IB_ADDR, resolved
// with librdmacm), by name and GID index, and the reasons for refusing a
// choice that cannot work. Uses the Soft-RoCE guest's RXE_DEV, RXE_IP and
// RXE_GID_IDX.
#include <gtest/gtest.h>

#include <cstdlib>

#include "rcoll/errors.hpp"
#include "rdma_test_world.hpp"

namespace rcoll::transport {
namespace {

using test::Bytes;
using test::pattern;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

class RdmaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    RCOLL_REQUIRE_RDMA();
    if (env("RXE_IP").empty() || env("RXE_DEV").empty() || env("RXE_GID_IDX").empty())
      GTEST_SKIP() << "needs RXE_DEV, RXE_IP and RXE_GID_IDX (set in the Soft-RoCE guest)";
  }
};

// Two ranks exchange one eager and one rendezvous message with `options`.
void exchange(const rdma::RdmaOptions& options) {
  auto w = test::make_rdma_world(2, options);
  test::run_ranks(2, [&](int rank) {
    Transport& t = w.at(rank);
    for (std::size_t size : {std::size_t(100), 3 * options.chunk_bytes}) {
      Bytes data = pattern(size, static_cast<std::uint32_t>(size));
      if (rank == 0) test::send(t, 1, 1, data);
      else EXPECT_EQ(test::recv(t, 0, 1, size), data);
    }
  });
}

TEST_F(RdmaDevice, SelectedByAddress) {
  auto options = test::test_options();
  options.address = env("RXE_IP");
  EXPECT_EQ(rdma_unavailable_reason(options), "");
  exchange(options);
}

TEST_F(RdmaDevice, SelectedByAddressWithRdmaCm) {
  auto options = test::test_options();
  options.address = env("RXE_IP");
  options.connect = rdma::ConnectMode::rdmacm;
  exchange(options);
}

TEST_F(RdmaDevice, SelectedByNamePortAndGidIndex) {
  auto options = test::test_options();
  options.device = env("RXE_DEV");
  options.port = 1;
  options.gid_index = std::atoi(env("RXE_GID_IDX").c_str());
  EXPECT_EQ(rdma_unavailable_reason(options), "");
  exchange(options);
}

TEST_F(RdmaDevice, ImpossibleChoicesAreRefusedWithAReason) {
  auto options = test::test_options();
  options.gid_index = 1000;
  EXPECT_NE(rdma_unavailable_reason(options).find("RCOLL_IB_GID_INDEX=1000 is not a valid GID"), std::string::npos)
      << rdma_unavailable_reason(options);
  options = test::test_options();
  options.port = 9;
  EXPECT_NE(rdma_unavailable_reason(options).find("has no port 9"), std::string::npos)
      << rdma_unavailable_reason(options);
  options = test::test_options();
  options.address = "198.51.100.7";  // TEST-NET-2: no interface here has it
  EXPECT_NE(rdma_unavailable_reason(options).find("RCOLL_IB_ADDR=198.51.100.7"), std::string::npos)
      << rdma_unavailable_reason(options);
}

}  // namespace
}  // namespace rcoll::transport
