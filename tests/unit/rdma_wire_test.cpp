// RDMA wire formats and options: pure functions, no device needed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "rcoll/errors.hpp"
#include "support/scoped_env.hpp"
#include "transport/rdma/rdma_transport.hpp"
#include "transport/rdma/wire.hpp"

namespace rcoll::transport::rdma {
namespace {

TEST(RdmaWire, ConnInfoRoundTripsThroughHex) {
  ConnInfo info;
  info.rank = 3;
  info.peer = 7;
  info.qpn = 0x123456;
  info.psn = 0xabcdef;
  info.lid = 42;
  info.ring_slots = 32;
  info.slot_bytes = 8240;
  info.gid[10] = 0xff;
  info.gid[15] = 9;
  info.token_hash = token_hash("secret");
  std::string text = to_hex(info);
  EXPECT_EQ(text.size(), 2 * sizeof(ConnInfo));
  EXPECT_EQ(text.find_first_not_of("0123456789abcdef"), std::string::npos);
  auto back = conn_info_from_hex(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(std::memcmp(&*back, &info, sizeof(info)), 0);
}

TEST(RdmaWire, MalformedOrForeignConnInfoIsRejected) {
  ConnInfo info;
  std::string text = to_hex(info);
  EXPECT_FALSE(conn_info_from_hex(text.substr(1)));  // short
  std::string bad = text;
  bad[5] = 'x';
  EXPECT_FALSE(conn_info_from_hex(bad));  // not hex
  info.version = wire_version + 1;
  EXPECT_FALSE(conn_info_from_hex(to_hex(info)));  // another version
  info.version = wire_version;
  info.magic = 0;
  EXPECT_FALSE(conn_info_from_hex(to_hex(info)));  // not ours
}

TEST(RdmaWire, TokenHashDistinguishesTokens) {
  EXPECT_EQ(token_hash("job-a"), token_hash("job-a"));
  EXPECT_NE(token_hash("job-a"), token_hash("job-b"));
  EXPECT_NE(token_hash(""), token_hash("x"));
}

TEST(RdmaWire, KindsHaveNamesForLogs) {
  EXPECT_EQ(kind_name(MsgKind::rts), "RTS");
  EXPECT_EQ(kind_name(MsgKind::cts), "CTS");
  EXPECT_EQ(kind_name(MsgKind::send_abort), "SEND_ABORT");
  EXPECT_EQ(kind_name(static_cast<MsgKind>(99)), "UNKNOWN");
}

using EnvVar = test::ScopedEnv;

TEST(RdmaOptions, EnvironmentIsParsed) {
  EnvVar a("RCOLL_IB_DEV", "mlx5_1"), b("RCOLL_IB_PORT", "2"), c("RCOLL_IB_GID_INDEX", "3"),
      d("RCOLL_IB_CM", "rdmacm"), e("RCOLL_IB_POLL", "event"), f("RCOLL_IB_EAGER_LIMIT", "4K"),
      g("RCOLL_IB_CHUNK", "1M"), h("RCOLL_IB_MR_CACHE", "0"), i("RCOLL_IB_DISCOVERY_MS", "0"),
      j("RCOLL_IB_KEEPALIVE_MS", "250");
  RdmaOptions o = RdmaOptions::from_env();
  EXPECT_EQ(o.device, "mlx5_1");
  EXPECT_EQ(o.port, 2);
  EXPECT_EQ(o.gid_index, 3);
  EXPECT_EQ(o.connect, ConnectMode::rdmacm);
  EXPECT_EQ(o.poll, PollMode::event);
  EXPECT_EQ(o.eager_limit, 4096u);
  EXPECT_EQ(o.chunk_bytes, 1u << 20);
  EXPECT_FALSE(o.mr_cache);
  EXPECT_EQ(o.discovery_interval.count(), 0);
  EXPECT_EQ(o.keepalive_interval.count(), 250);
}

TEST(RdmaOptions, BadValuesAreInvalidArguments) {
  for (auto [name, value] : {std::pair{"RCOLL_IB_PORT", "0"}, {"RCOLL_IB_PORT", "1x"}, {"RCOLL_IB_CM", "tcp"},
                             {"RCOLL_IB_EAGER_LIMIT", "8Q"}, {"RCOLL_IB_EAGER_LIMIT", "2G"},
                             {"RCOLL_IB_CHUNK", "100"}, {"RCOLL_IB_RING_SLOTS", "2"},
                             {"RCOLL_IB_KEEPALIVE_MS", "-1"}}) {
    EnvVar var(name, value);
    EXPECT_THROW(RdmaOptions::from_env(), InvalidArgument) << name << "=" << value;
  }
}

}  // namespace
}  // namespace rcoll::transport::rdma
