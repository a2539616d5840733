#include "store/artifacts.h"

#include <gtest/gtest.h>

#include <fstream>

#include "store/sha256.h"
#include "store/test_temp_dir.h"

namespace headway::store {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> all_files(const fs::path& root) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  return files;
}

TEST(StoreArtifacts, SameTextSameHashDifferentTextDifferentHash) {
  TestTempDir dir;
  ArtifactStore store(dir.path() / "artifacts");
  auto a = store.put("int main() {}\n");
  auto b = store.put("int main() {}\n");
  auto c = store.put("int main() { return 1; }\n");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *c);
  EXPECT_EQ(*a, sha256_hex("int main() {}\n"));
  EXPECT_EQ(all_files(store.root()).size(), 2u);
}

TEST(StoreArtifacts, LaidOutByHashPrefixWithNoTempFilesLeft) {
  TestTempDir dir;
  ArtifactStore store(dir.path() / "artifacts");
  std::vector<std::string> hashes;
  for (int i = 0; i < 20; ++i) hashes.push_back(store.put("text " + std::to_string(i)).value());
  for (const auto& h : hashes) {
    EXPECT_EQ(store.path_of(h), store.root() / h.substr(0, 2) / h);
    EXPECT_TRUE(fs::is_regular_file(store.path_of(h)));
  }
  for (const auto& file : all_files(store.root())) {
    EXPECT_TRUE(is_sha256_hex(file.filename().string())) << file;
    EXPECT_EQ(file.parent_path().filename().string(), file.filename().string().substr(0, 2));
  }
  EXPECT_EQ(all_files(store.root()).size(), hashes.size());
}

TEST(StoreArtifacts, GetReturnsExactBytes) {
  TestTempDir dir;
  ArtifactStore store(dir.path() / "artifacts");
  const std::string binary("a\0b\xff\n", 5);
  for (const std::string& text : {std::string(), binary, std::string(100000, 'x')}) {
    const std::string hash = store.put(text).value();
    EXPECT_TRUE(store.contains(hash));
    EXPECT_EQ(store.get(hash), text);
  }
}

TEST(StoreArtifacts, MissingOrMalformedHashIsNullopt) {
  TestTempDir dir;
  ArtifactStore store(dir.path() / "artifacts");
  EXPECT_EQ(store.get(sha256_hex("never stored")), std::nullopt);
  EXPECT_EQ(store.get("../../etc/passwd"), std::nullopt);
  EXPECT_FALSE(store.contains("zz"));
  EXPECT_THROW(store.path_of("not-a-hash"), std::logic_error);
}

TEST(StoreArtifacts, TruncatedFileIsRewritten) {
  TestTempDir dir;
  ArtifactStore store(dir.path() / "artifacts");
  const std::string text = "the whole text";
  const std::string hash = store.put(text).value();
  std::ofstream(store.path_of(hash), std::ios::trunc) << "the wh";
  ASSERT_EQ(store.put(text).value(), hash);
  EXPECT_EQ(store.get(hash), text);
}

TEST(StoreArtifacts, UnwritableRootIsAnError) {
  TestTempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  ArtifactStore store(dir.path() / "file" / "artifacts");
  auto put = store.put("text");
  ASSERT_FALSE(put.ok());
  EXPECT_NE(put.error().message.find("cannot create"), std::string::npos) << put.error().message;
}

}  // namespace
}  // namespace headway::store
