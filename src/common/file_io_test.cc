#include "common/file_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>

#include "store/test_temp_dir.h"

namespace headway {
namespace {

namespace fs = std::filesystem;

int files_in(const fs::path& dir) {
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  return files;
}

// The message of what `write` throws; "" when it throws nothing.
template <typename F>
std::string thrown(F write) {
  try {
    write();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(FileIo, WritesAndReadsEveryByteBack) {
  store::TestTempDir dir;
  const auto path = dir.path() / "data.bin";
  std::string bytes = "line\n";
  bytes += '\0';
  bytes += std::string(200000, 'x');  // more than one read's buffer
  write_file(path, bytes);
  EXPECT_EQ(read_file(path), bytes);
  write_file(path, "short");
  EXPECT_EQ(read_file(path), "short") << "a write replaces the whole content";
  write_file(path, "");
  EXPECT_EQ(read_file(path), "");
}

TEST(FileIo, AReadThatFailsIsNulloptWithErrnoSayingWhy) {
  store::TestTempDir dir;
  errno = 0;
  EXPECT_EQ(read_file(dir.path() / "missing"), std::nullopt);
  EXPECT_EQ(errno, ENOENT);
  errno = 0;
  EXPECT_EQ(read_file(dir.path()), std::nullopt);
  EXPECT_EQ(errno, EISDIR);
}

TEST(FileIo, ReadsAFileThatReportsNoSize) {
  const auto stat = read_file("/proc/self/stat");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->rfind(std::to_string(::getpid()) + " (", 0), 0u) << *stat;
}

TEST(FileIo, AWriteThatFailsThrowsOneLineNamingTheFileAndTheReason) {
  store::TestTempDir dir;
  const auto path = dir.path() / "no-such-folder" / "out.txt";
  const std::string message = thrown([&] { write_file(path, "text"); });
  EXPECT_EQ(message, "cannot write " + path.string() + ": No such file or directory");
  EXPECT_FALSE(fs::exists(dir.path() / "no-such-folder")) << "no parent is created";
  EXPECT_NE(thrown([&] { write_file(dir.path(), "text"); }).find("Is a directory"),
            std::string::npos);
}

TEST(FileIo, WriteFileCreatingFoldersCreatesTheMissingOnes) {
  store::TestTempDir dir;
  const auto path = dir.path() / "a" / "b" / "out.txt";
  write_file_creating_folders(path, "text");
  EXPECT_EQ(read_file(path), "text");
  write_file_creating_folders(path, "again");
  EXPECT_EQ(read_file(path), "again") << "folders that exist are fine";
  // A file where a folder should be: one line naming the file.
  write_file(dir.path() / "plain", "x");
  const auto under_file = dir.path() / "plain" / "out.txt";
  const std::string message = thrown([&] { write_file_creating_folders(under_file, "text"); });
  EXPECT_EQ(message.rfind("cannot write " + under_file.string() + ": ", 0), 0u) << message;
}

TEST(AtomicFile, ReplacesTheContentAndLeavesNoTemporaryFile) {
  store::TestTempDir dir;
  const auto path = dir.path() / "summary.md";
  write_file_atomically(path, "first\n");
  write_file_atomically(path, "second, longer\n");
  EXPECT_EQ(read_file(path), "second, longer\n");
  EXPECT_EQ(files_in(dir.path()), 1);
}

TEST(AtomicFile, AFolderThatCannotBeWrittenThrowsOneLineNamingTheFile) {
  store::TestTempDir dir;
  const auto path = dir.path() / "no-such-folder" / "summary.md";
  const std::string error = thrown([&] { write_file_atomically(path, "text"); });
  EXPECT_NE(error.find("no-such-folder"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
  // A target that is a folder: the rename fails, and the temporary file is gone.
  fs::create_directories(dir.path() / "taken");
  const std::string over_folder =
      thrown([&] { write_file_atomically(dir.path() / "taken", "text"); });
  EXPECT_NE(over_folder.find("taken"), std::string::npos) << over_folder;
  EXPECT_EQ(files_in(dir.path()), 1) << "only the folder 'taken' is left";
  EXPECT_TRUE(fs::is_directory(dir.path() / "taken"));
}

}  // namespace
}  // namespace headway
