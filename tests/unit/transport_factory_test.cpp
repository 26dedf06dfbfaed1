// transport/factory: which transport `auto` takes and how it says why, and
// `rdma` in a build without RDMA (RCOLL_WITH_RDMA=OFF, scripts/tcp-only.sh).
#include <gtest/gtest.h>

#include <string>

#include "rcoll/errors.hpp"
#include "support/captured_log.hpp"
#include "transport/factory.hpp"

namespace rcoll::transport {
namespace {

const std::string no_rdma_in_build = "this build of rcoll has no RDMA support (RCOLL_WITH_RDMA=OFF)";

TransportConfig one_rank() {
  TransportConfig config;
  config.job_token = "factory-test";
  config.socket_ifname = "127.0.0.1";
  return config;
}

TEST(TransportFactory, AutoTakesRdmaExactlyWhenNothingPreventsItElseSaysWhy) {
  const std::string why = rdma_unavailable_reason();
  test::CapturedLog log(spdlog::level::warn);
  auto transport = make_transport(TransportKind::automatic, one_rank());
  if (why.empty()) {
    EXPECT_EQ(transport->name(), "rdma");
  } else {
    EXPECT_EQ(transport->name(), "tcp");
    EXPECT_NE(log.text().find("transport auto: using tcp because RDMA is unavailable: " + why), std::string::npos)
        << log.text();
  }
}

TEST(TransportFactory, ABuildWithoutRdmaRefusesItAndSaysSo) {
  if (RCOLL_WITH_RDMA) GTEST_SKIP() << "this build has the RDMA transport (RCOLL_WITH_RDMA=ON)";
  EXPECT_EQ(rdma_unavailable_reason(), no_rdma_in_build);
  try {
    make_transport(TransportKind::rdma, one_rank());
    ADD_FAILURE() << "a build without RDMA made an RDMA transport";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("rank 0: transport rdma: " + no_rdma_in_build), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace rcoll::transport
