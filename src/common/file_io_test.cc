#include "common/atomic_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "store/test_temp_dir.h"

namespace headway {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicFile, ReplacesTheContentAndLeavesNoTemporaryFile) {
  store::TestTempDir dir;
  const auto path = dir.path() / "summary.md";
  ASSERT_EQ(write_file_atomically(path, "first\n"), std::nullopt);
  ASSERT_EQ(write_file_atomically(path, "second, longer\n"), std::nullopt);
  EXPECT_EQ(read(path), "second, longer\n");
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1);
}

TEST(AtomicFile, AFolderThatCannotBeWrittenIsOneLineNamingTheFile) {
  store::TestTempDir dir;
  const auto path = dir.path() / "no-such-folder" / "summary.md";
  const auto error = write_file_atomically(path, "text");
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("no-such-folder"), std::string::npos) << *error;
  EXPECT_EQ(error->find('\n'), std::string::npos);
  // A target that is a folder: the rename fails, and the temporary file is gone.
  std::filesystem::create_directories(dir.path() / "taken");
  const auto over_folder = write_file_atomically(dir.path() / "taken", "text");
  ASSERT_TRUE(over_folder);
  EXPECT_NE(over_folder->find("taken"), std::string::npos);
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1) << "only the folder 'taken' is left";
}

}  // namespace
}  // namespace headway
