#include "common/hash.h"

#include <gtest/gtest.h>

#include <string>

namespace headway {
namespace {

std::string pattern(size_t n) {
  std::string bytes(n, '\0');
  for (size_t k = 0; k < n; ++k) bytes[k] = static_cast<char>((k * 131 + k / 7) & 0xff);
  return bytes;
}

struct Known {
  size_t bytes;
  uint64_t xxh3;    // XXH3_64bits of Debian's libxxhash.so.0 (0.8.1); 0 bytes: xxHash's own vector
  uint64_t stable;  // what hash_bytes was before it became XXH3
};
// Lengths on either side of the 32-byte blocks of the stable hash and of XXH3's 16/128/240-byte
// size classes, up to a megabyte (its long-input loop).
constexpr Known kKnown[] = {
    {0, 0x2d06800538d394c2ull, 0x7b15e4ccf6b98d25ull},
    {1, 0xc44bdff4074eecdbull, 0x213b1e687c0a4648ull},
    {31, 0x2d6bc7fd9fa090b5ull, 0xf2aaab325f273e05ull},
    {32, 0xbf7065a3452980b2ull, 0x6c752edb3c7968c8ull},
    {33, 0x3d365a449ecddf3cull, 0x249d31d4bdd1ce8bull},
    {1000, 0xc1feaf92aada9032ull, 0x05945240dd3890faull},
    {1 << 20, 0x2e123a507929834eull, 0x7ff6e15119da746cull},
};

TEST(Hash, HashBytesIsXxh3) {
  const std::string bytes = pattern(1 << 20);
  for (const Known& k : kKnown) EXPECT_EQ(hash_bytes(bytes.data(), k.bytes), k.xxh3) << k.bytes;
}

TEST(Hash, TheStableHashKeepsItsValues) {
  const std::string bytes = pattern(1 << 20);
  for (const Known& k : kKnown) {
    EXPECT_EQ(stable_hash_bytes(bytes.data(), k.bytes), k.stable) << k.bytes;
  }
}

TEST(Hash, OneFlippedBitChangesTheHash) {
  std::string bytes = pattern(4096);
  const uint64_t before = hash_bytes(bytes.data(), bytes.size());
  for (const size_t at : {size_t{0}, size_t{2047}, size_t{4095}}) {
    bytes[at] = static_cast<char>(bytes[at] ^ 1);
    EXPECT_NE(hash_bytes(bytes.data(), bytes.size()), before) << at;
    bytes[at] = static_cast<char>(bytes[at] ^ 1);
  }
  EXPECT_EQ(hash_bytes(bytes.data(), bytes.size()), before);
}

}  // namespace
}  // namespace headway
