// RDMA wire formats and options: pure functions, no device needed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "rcoll/errors.hpp"
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

}  // namespace
}  // namespace rcoll::transport::rdma
