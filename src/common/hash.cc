#include "common/hash.h"

#include <cstring>

// xxHash compiled into this file (header-only use), so that XXH3 uses the vector instructions the
// build targets (-march=native with HEADWAY_NATIVE); Debian's shared library is built for baseline
// x86-64 (docs/PERFORMANCE.md, "The gate's content hash"). GCC 12 warns of an uninitialised
// variable inside its own AVX-512 intrinsics as XXH3 uses them (GCC bug 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace headway {

uint64_t hash_bytes(const void* data, size_t n) { return XXH3_64bits(data, n); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// Four multiply-xor lanes over 32-byte blocks, then the tail byte by byte. Frozen: see hash.h.
uint64_t stable_hash_bytes(const void* data, size_t n) {
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
