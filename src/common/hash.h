#pragma once
// Fast 64-bit content hash for change detection (not cryptographic, not for addressing).
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace headway {

inline uint64_t hash_bytes(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
  uint64_t lanes[4] = {n, kMul, ~n, 0x243f6a8885a308d3ull};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int l = 0; l < 4; ++l) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * l, 8);
      lanes[l] = (lanes[l] ^ w) * kMul;
      lanes[l] ^= lanes[l] >> 29;
    }
  }
  uint64_t h = lanes[0] ^ (lanes[1] * 3) ^ (lanes[2] * 5) ^ (lanes[3] * 7);
  for (; i < n; ++i) h = (h ^ p[i]) * kMul;
  h ^= h >> 31;
  return h * kMul;
}

}  // namespace headway
