#include "store/sha256.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace headway::store {
namespace {

TEST(StoreSha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(StoreSha256, PaddingBoundaries) {
  // 55, 56 and 64 bytes sit on either side of the one-block/two-block padding boundary.
  EXPECT_EQ(sha256_hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256_hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(sha256_hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(StoreSha256, IncrementalEqualsOneShot) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>('a' + i % 26);
  for (size_t split : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{200}}) {
    Sha256 hasher;
    hasher.update(std::string_view(text).substr(0, split));
    hasher.update(std::string_view(text).substr(split));
    const auto digest = hasher.digest();
    std::string hex;
    for (const auto b : digest) hex += fmt::format("{:02x}", b);
    EXPECT_EQ(hex, sha256_hex(text)) << "split " << split;
  }
}

// Several megabytes fed in uneven pieces (the digest is Python's hashlib.sha256 of the same
// bytes, and what the hand-written implementation this file first tested gave).
TEST(StoreSha256, LongInputInUnevenPieces) {
  std::string bytes(3000017, '\0');
  for (size_t k = 0; k < bytes.size(); ++k) bytes[k] = static_cast<char>((k * 131 + k / 7) & 0xff);
  const std::string expected = "d52f6301c7c1ec75e2aa1a7d80824c3a19f9c7aa83a7a0788d09b5cc670c7abf";
  EXPECT_EQ(sha256_hex(bytes), expected);
  Sha256 hasher;
  const size_t pieces[] = {1, 63, 64, 65, 4095, 100000};
  for (size_t at = 0, i = 0; at < bytes.size(); at += pieces[i % 6], ++i) {
    hasher.update(std::string_view(bytes).substr(at, pieces[i % 6]));
  }
  std::string hex;
  for (const auto b : hasher.digest()) hex += fmt::format("{:02x}", b);
  EXPECT_EQ(hex, expected);
}

TEST(StoreSha256, ADigestEndsTheHasher) {
  Sha256 hasher;
  hasher.update("abc");
  hasher.digest();
  EXPECT_THROW(hasher.update("d"), std::logic_error);
  EXPECT_THROW(hasher.digest(), std::logic_error);
}

TEST(StoreSha256, RecognizesHexShape) {
  EXPECT_TRUE(is_sha256_hex(sha256_hex("x")));
  EXPECT_FALSE(is_sha256_hex("abc"));
  EXPECT_FALSE(is_sha256_hex(std::string(64, 'A')));
  EXPECT_FALSE(is_sha256_hex(std::string(63, 'a') + "/"));
}

}  // namespace
}  // namespace headway::store
