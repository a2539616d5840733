#include "targets/command/candidate_files.h"

#include <gtest/gtest.h>

#include <fstream>

#include "store/test_temp_dir.h"

namespace headway::command {
namespace {

const std::vector<std::string> kEditable = {"src/device/*.rs", "src/ops.rs"};

TEST(CandidateFiles, PlainSourceReplacesTheKernelFile) {
  const auto files = candidate_files("fn main() {}\n", "src/device/qkv.rs", kEditable).value();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, "src/device/qkv.rs");
  EXPECT_EQ(files[0].text, "fn main() {}\n");
}

TEST(CandidateFiles, BundleWithAPreambleThatOpensTheFirstFile) {
  const auto files = candidate_files(
                         "#define P_TILE 64\n// headway-file: src/device/qkv.rs\ntile P_TILE\n// "
                         "headway-file: src/ops.rs\nops\n",
                         "", kEditable)
                         .value();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "src/device/qkv.rs");
  EXPECT_EQ(files[0].text, "#define P_TILE 64\ntile P_TILE\n");
  EXPECT_EQ(files[1].path, "src/ops.rs");
  EXPECT_EQ(files[1].text, "ops\n");
}

TEST(CandidateFiles, MarkersInTheKernelLanguagesCommentOrInTwoSlashes) {
  const targets::KernelLanguage hash{"#", targets::KernelLanguage::Params::kPlaceholder, true};
  const std::vector<std::string> editable = {"kernels/*.py"};
  const std::string source =
      "# headway-kernel: qkv\n# headway-file: kernels/qkv.py\ntile = 4\n"
      "// headway-file: kernels/ops.py\n# an ops comment\n";
  EXPECT_EQ(candidate_kernel(source, hash), "qkv");
  EXPECT_EQ(candidate_kernel(source), "");  // `#` is no comment in the C family
  const auto files = candidate_files(source, "", editable, hash).value();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "kernels/qkv.py");
  EXPECT_EQ(files[0].text, "tile = 4\n");
  EXPECT_EQ(files[1].path, "kernels/ops.py");
  EXPECT_EQ(files[1].text, "# an ops comment\n");
  const auto unnamed = candidate_files("tile = 4\n", "", editable, hash);
  ASSERT_FALSE(unnamed);
  EXPECT_NE(unnamed.error().message.find("'# headway-file: PATH'"), std::string::npos)
      << unnamed.error().message;
}

TEST(CandidateFiles, AKernelLineNamesTheKernelAndBelongsToNoFile) {
  const std::string source = "// headway-kernel: ffn\n// headway-file: src/ops.rs\nops\n";
  EXPECT_EQ(candidate_kernel(source), "ffn");
  EXPECT_EQ(candidate_kernel("// headway-file: src/ops.rs\n"), "");
  EXPECT_EQ(candidate_files(source, "", kEditable).value()[0].text, "ops\n");
}

TEST(CandidateFiles, TouchingAnythingElseIsRejected) {
  const auto other = candidate_files("// headway-file: build.rs\nfn main() {}\n", "", kEditable);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().message,
            "the candidate changes build.rs, which is not among the files a candidate may change "
            "(src/device/*.rs, src/ops.rs)");
  EXPECT_FALSE(candidate_files("// headway-file: src/device/../../etc/x.rs\n", "", kEditable).ok());
  EXPECT_FALSE(candidate_files("// headway-file: /etc/passwd\n", "", {"*"}).ok());
  EXPECT_NE(candidate_files("no marker", "", kEditable).error().message.find("names no file"),
            std::string::npos);
}

TEST(CandidateFiles, CopyLeavesOutGitAndBuildOutputsThenWrites) {
  store::TestTempDir dir;
  const auto repo = dir.path() / "repo";
  std::filesystem::create_directories(repo / ".git");
  std::filesystem::create_directories(repo / "target/release");
  std::filesystem::create_directories(repo / "src/device");
  std::ofstream(repo / "src/device/qkv.rs") << "old";
  std::ofstream(repo / "target/release/big") << "x";
  std::ofstream(repo / ".git/HEAD") << "ref";
  copy_repository(repo, dir.path() / "copy");
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "copy/src/device/qkv.rs"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "copy/target"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "copy/.git"));
  write_files(dir.path() / "copy", {{"src/device/qkv.rs", "new"}});
  std::ifstream in(dir.path() / "copy/src/device/qkv.rs");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "new");
}

}  // namespace
}  // namespace headway::command
