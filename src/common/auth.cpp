#include "common/auth.hpp"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstring>
#include <string>
#include <vector>

#include "rcoll/errors.hpp"

namespace rcoll::auth {
namespace {

std::span<const std::uint8_t> bytes_of_text(std::string_view text) noexcept {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// Appends `part` after its length (4 bytes, little-endian).
void append_part(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> part) {
  const auto n = static_cast<std::uint32_t>(part.size());
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::uint8_t>(n >> shift));
  out.insert(out.end(), part.begin(), part.end());
}

std::string openssl_error() {
  char text[256] = "unknown error";
  if (unsigned long code = ERR_get_error(); code != 0) ERR_error_string_n(code, text, sizeof(text));
  return text;
}

}  // namespace

Proof hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> message) {
  Proof out{};
  unsigned int length = 0;
  // OpenSSL wants a non-null key pointer even for an empty key.
  static const std::uint8_t empty = 0;
  const std::uint8_t* key_data = key.empty() ? &empty : key.data();
  if (HMAC(EVP_sha256(), key_data, static_cast<int>(key.size()), message.data(), message.size(), out.data(),
           &length) == nullptr ||
      length != out.size())
    throw IoError(-1, -1, "authentication", "HMAC-SHA-256 failed: " + openssl_error());
  return out;
}

Nonce fresh_nonce() {
  Nonce nonce{};
  if (RAND_bytes(nonce.data(), static_cast<int>(nonce.size())) != 1)
    throw IoError(-1, -1, "authentication", "no random bytes for a nonce: " + openssl_error());
  return nonce;
}

Proof prove(std::string_view token, std::string_view role, const Nonce& challenge, const Nonce& own,
            std::span<const std::uint8_t> fields) {
  std::vector<std::uint8_t> message;
  message.reserve(role.size() + challenge.size() + own.size() + fields.size() + 16);
  append_part(message, bytes_of_text(role));
  append_part(message, challenge);
  append_part(message, own);
  append_part(message, fields);
  return hmac_sha256(bytes_of_text(token), message);
}

bool same_proof(const Proof& a, const Proof& b) noexcept {
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::uint64_t token_id(std::string_view token, std::string_view purpose) {
  Proof mac = hmac_sha256(bytes_of_text(token), bytes_of_text(purpose));
  std::uint64_t id = 0;
  std::memcpy(&id, mac.data(), sizeof(id));
  return id;
}

}  // namespace rcoll::auth
