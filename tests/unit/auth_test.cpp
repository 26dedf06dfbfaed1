// The job-token proofs (src/common/auth.*): HMAC-SHA-256 against the
// RFC 4231 test vectors, and the properties the handshakes rely on.
#include "common/auth.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rcoll::auth {
namespace {

std::vector<std::uint8_t> from_hex(std::string_view hex) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<std::uint8_t>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

std::vector<std::uint8_t> from_text(std::string_view text) { return {text.begin(), text.end()}; }

std::string to_hex(const Proof& proof) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : proof) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

struct Vector {
  const char* name;
  std::vector<std::uint8_t> key;
  std::vector<std::uint8_t> data;
  const char* mac;
};

TEST(Auth, HmacSha256MatchesRfc4231) {
  const std::vector<Vector> vectors = {
      {"case 1", std::vector<std::uint8_t>(20, 0x0b), from_text("Hi There"),
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"case 2", from_text("Jefe"), from_text("what do ya want for nothing?"),
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {"case 3", std::vector<std::uint8_t>(20, 0xaa), std::vector<std::uint8_t>(50, 0xdd),
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {"case 4", from_hex("0102030405060708090a0b0c0d0e0f10111213141516171819"), std::vector<std::uint8_t>(50, 0xcd),
       "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      {"case 6 (key longer than a block)", std::vector<std::uint8_t>(131, 0xaa),
       from_text("Test Using Larger Than Block-Size Key - Hash Key First"),
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {"case 7", std::vector<std::uint8_t>(131, 0xaa),
       from_text("This is a test using a larger than block-size key and a larger than block-size data. The key needs to "
                 "be hashed before being used by the HMAC algorithm."),
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  for (const Vector& v : vectors) EXPECT_EQ(to_hex(hmac_sha256(v.key, v.data)), v.mac) << v.name;
}

TEST(Auth, NoncesAreFreshEachTime) {
  Nonce a = fresh_nonce();
  Nonce b = fresh_nonce();
  EXPECT_NE(a, b);
  EXPECT_NE(a, Nonce{});
}

TEST(Auth, AProofDependsOnTokenRoleNoncesAndFields) {
  const Nonce x = fresh_nonce(), y = fresh_nonce();
  const std::uint32_t fields = 7, other_fields = 8;
  const Proof p = prove("secret", tcp_dialer, x, y, bytes_of(fields));
  EXPECT_TRUE(same_proof(p, prove("secret", tcp_dialer, x, y, bytes_of(fields))));
  EXPECT_FALSE(same_proof(p, prove("Secret", tcp_dialer, x, y, bytes_of(fields))));
  EXPECT_FALSE(same_proof(p, prove("secret", tcp_acceptor, x, y, bytes_of(fields))));  // no reflection
  EXPECT_FALSE(same_proof(p, prove("secret", tcp_dialer, y, x, bytes_of(fields))));     // nonces in order
  EXPECT_FALSE(same_proof(p, prove("secret", tcp_dialer, x, fresh_nonce(), bytes_of(fields))));
  EXPECT_FALSE(same_proof(p, prove("secret", tcp_dialer, x, y, bytes_of(other_fields))));
  EXPECT_FALSE(same_proof(p, prove("secret", tcp_dialer, x, y)));
}

TEST(Auth, SameProofComparesEveryByte) {
  const Proof p = prove("t", bootstrap_client, fresh_nonce(), fresh_nonce());
  for (std::size_t i = 0; i < p.size(); ++i) {
    Proof q = p;
    q[i] ^= 1;
    EXPECT_FALSE(same_proof(p, q)) << "byte " << i;
  }
}

TEST(Auth, TokenIdsNameTheTokenPerPurpose) {
  EXPECT_EQ(token_id("abc", "rdma"), token_id("abc", "rdma"));
  EXPECT_NE(token_id("abc", "rdma"), token_id("abd", "rdma"));
  EXPECT_NE(token_id("abc", "rdma"), token_id("abc", "other"));
}

}  // namespace
}  // namespace rcoll::auth
