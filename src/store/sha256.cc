#include "store/sha256.h"

// The hashing is Nettle's (nettle-dev), not OpenSSL's libcrypto: Nettle's context is a plain
// struct, and its update and digest cannot fail, so this class keeps its interface with no
// allocation and no error paths; libcrypto's EVP interface allocates its context, returns a status
// from every call and loads its configuration and providers on first use. Both pick the SHA-NI
// instructions at run time where the CPU has them.
#include <stdexcept>

namespace headway::store {

Sha256::Sha256() { sha256_init(&context_); }

void Sha256::update(std::string_view bytes) {
  if (finished_) throw std::logic_error("Sha256::update after digest");
  sha256_update(&context_, bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()));
}

std::array<uint8_t, 32> Sha256::digest() {
  if (finished_) throw std::logic_error("Sha256::digest called twice");
  finished_ = true;
  std::array<uint8_t, 32> out;
  static_assert(SHA256_DIGEST_SIZE == 32);
  sha256_digest(&context_, out.size(), out.data());
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 hasher;
  hasher.update(bytes);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (const uint8_t byte : hasher.digest()) {
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xf]);
  }
  return out;
}

bool is_sha256_hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace headway::store
