#pragma once
// SHA-256 (FIPS 180-4), used to name content-addressed artifacts.
#include <nettle/sha2.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace headway::store {

// Incremental hasher: update() any number of times, then digest() once.
class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  // The 32-byte digest of everything passed to update(). Ends the hasher: calling update() or
  // digest() afterwards is a bug (std::logic_error).
  std::array<uint8_t, 32> digest();

 private:
  sha256_ctx context_;  // Nettle's
  bool finished_ = false;
};

// The digest of `bytes` as 64 lower-case hex digits.
std::string sha256_hex(std::string_view bytes);

// True for 64 lower-case hex digits (the shape of sha256_hex's result).
bool is_sha256_hex(std::string_view text);

}  // namespace headway::store
