// Precompiled candidate headers: real compiler, real bwrap.
#include "targets/cpu/precompiled_header.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/cache_dir.h"
#include "common/sandbox.h"
#include "common/scoped_env_test_support.h"
#include "store/test_temp_dir.h"
#include "targets/candidate_headers.h"
#include "targets/cpu/sandboxed_toolchain_test_support.h"

namespace headway::cpu {
namespace {

namespace fs = std::filesystem;

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

const std::vector<targets::DocFile>& headway_headers() {
  static const auto headers = targets::candidate_headers(kCandidateHeaders);
  return headers;
}

TEST(FirstCandidateInclude, IsTheFirstIncludeWhenItIsACandidateHeader) {
  const auto& h = headway_headers();
  EXPECT_EQ(
      first_candidate_include("// a design\n#include \"headway_attn.h\"\n#include <cmath>\n", h),
      "headway_attn.h");
  EXPECT_EQ(first_candidate_include("#define P 4\n  #  include \"headway_kernel.h\"\n", h),
            "headway_kernel.h");
  EXPECT_EQ(first_candidate_include("#include <cmath>\n#include \"headway_kernel.h\"\n", h), "");
  EXPECT_EQ(first_candidate_include("#include \"mine.h\"\n#include \"headway_kernel.h\"\n", h), "");
  EXPECT_EQ(first_candidate_include("int f() { return 1; }\n", h), "");
}

using PrecompiledHeader = testing::SandboxedToolchain;

// A candidate of the design library's kind: the first include precompiled.
constexpr const char* kCandidate =
    "// headway test\n#include \"headway_kernel.h\"\n#include \"headway_support.h\"\n"
    "#include <cmath>\n"
    "extern \"C\" float headway_test_sum(const float* x, int n) {\n"
    "  float s = 0; for (int i = 0; i < n; ++i) s += std::sqrt(x[i]); return s; }\n";

TEST_F(PrecompiledHeader, ABuildWithItWritesTheSameObjectAsOneWithout) {
  store::TestTempDir with, without;
  const auto built = build_candidate(toolchain_, identity_, kCandidate, with.path());
  ASSERT_TRUE(built.built()) << built.diagnostics;
  Toolchain plain = toolchain_;
  plain.precompiled_headers = false;
  const auto reference = build_candidate(plain, identity_, kCandidate, without.path());
  ASSERT_TRUE(reference.built()) << reference.diagnostics;
  EXPECT_EQ(bytes_of(built.artifact.path), bytes_of(reference.artifact.path));
  // The scratch folder held none of the headers: the build read them from the folder.
  const auto folder = precompiled_header_folder(toolchain_, identity_, headway_headers(),
                                                "headway_kernel.h", build_cache_dir());
  ASSERT_TRUE(folder);
  EXPECT_GT(fs::file_size(*folder / "headway_kernel.h.gch"), 1u << 20);
  EXPECT_EQ(bytes_of(*folder / "headway_kernel.h"), headway_headers()[0].text);
  for (const fs::path& objects : {with.path(), without.path()})
    for (const auto& e : fs::directory_iterator(objects))
      EXPECT_FALSE(e.path().filename().string().starts_with("pch-")) << e.path();
}

TEST_F(PrecompiledHeader, IsMadeOnceAndUsedByLaterBuilds) {
  store::TestTempDir cache;
  headway::testing::ScopedEnv shared("HEADWAY_CACHE_DIR", cache.path().c_str());
  // g++ warns where it finds a precompiled header it cannot use: an error here.
  toolchain_.flags.insert(toolchain_.flags.end(), {"-Winvalid-pch", "-Werror"});
  auto build = [&](const std::string& comment) {
    return build_candidate(toolchain_, identity_, std::string(kCandidate) + comment,
                           cache.path() / "objects");
  };
  const auto first = build("// the first candidate\n");
  ASSERT_TRUE(first.built()) << first.diagnostics;
  // The build made the folder; the next one finds it and makes no other.
  const auto folder = precompiled_header_folder(toolchain_, identity_, headway_headers(),
                                                "headway_kernel.h", cache.path());
  ASSERT_TRUE(folder);
  const fs::path gch = *folder / "headway_kernel.h.gch";
  const auto made = fs::last_write_time(gch);
  const auto second = build("// the second candidate\n");
  ASSERT_TRUE(second.built()) << second.diagnostics;
  EXPECT_EQ(fs::last_write_time(gch), made);
  int folders = 0;
  for (const auto& e : fs::directory_iterator(cache.path()))
    folders += e.path().filename().string().starts_with("pch-") ? 1 : 0;
  EXPECT_EQ(folders, 1) << "no leftover scratch folders, no second copy";
  // A build reads that very file: spoilt, it fails the next build.
  std::ofstream(gch, std::ios::trunc) << "not a precompiled header\n";
  const auto spoilt = build("// the third candidate\n");
  EXPECT_EQ(spoilt.status, targets::BuildOutcome::Status::kCompileError);
  EXPECT_NE(spoilt.diagnostics.find("headway_kernel.h.gch"), std::string::npos)
      << spoilt.diagnostics;
}

TEST_F(PrecompiledHeader, OtherHeaderTextsOrAnotherFirstHeaderGetTheirOwnFolder) {
  store::TestTempDir cache;
  const std::vector<targets::DocFile> a = {
      {"one.h", "#pragma once\ninline int one() { return 1; }\n"}};
  const std::vector<targets::DocFile> b = {
      {"one.h", "#pragma once\ninline int one() { return 2; }\n"}};
  const auto fa = precompiled_header_folder(toolchain_, identity_, a, "one.h", cache.path());
  const auto fb = precompiled_header_folder(toolchain_, identity_, b, "one.h", cache.path());
  ASSERT_TRUE(fa && fb);
  EXPECT_NE(*fa, *fb);
  EXPECT_EQ(bytes_of(*fb / "one.h"), b[0].text);
}

TEST_F(PrecompiledHeader, AHeaderThatDoesNotCompileIsNotTriedAgain) {
  store::TestTempDir cache;
  const std::vector<targets::DocFile> broken = {{"bad.h", "#pragma once\nint broken( {\n"}};
  EXPECT_FALSE(precompiled_header_folder(toolchain_, identity_, broken, "bad.h", cache.path()));
  fs::path marker;
  for (const auto& e : fs::recursive_directory_iterator(cache.path()))
    if (e.path().filename() == "unusable.txt") marker = e.path();
  ASSERT_FALSE(marker.empty());
  EXPECT_NE(bytes_of(marker).find("error"), std::string::npos) << bytes_of(marker);
  const auto noted = fs::last_write_time(marker);
  EXPECT_FALSE(precompiled_header_folder(toolchain_, identity_, broken, "bad.h", cache.path()));
  EXPECT_EQ(fs::last_write_time(marker), noted);
  EXPECT_FALSE(fs::exists(marker.parent_path() / "bad.h.gch"));
}

TEST_F(PrecompiledHeader, ACacheThatCannotBeWrittenGivesNoFolderAndNoError) {
  store::TestTempDir dir;
  std::ofstream(dir.path() / "a file") << "not a folder\n";
  const std::vector<targets::DocFile> one = {{"one.h", "#pragma once\n"}};
  EXPECT_FALSE(
      precompiled_header_folder(toolchain_, identity_, one, "one.h", dir.path() / "a file" / "x"));
}

TEST_F(PrecompiledHeader, TheFolderIsAbsoluteWhateverTheCacheIsNamedBy) {
  store::TestTempDir dir;
  const fs::path before = fs::current_path();
  fs::current_path(dir.path());
  const std::vector<targets::DocFile> one = {
      {"one.h", "#pragma once\ninline int one() { return 1; }\n"}};
  const auto folder = precompiled_header_folder(toolchain_, identity_, one, "one.h", "cache");
  fs::current_path(before);
  ASSERT_TRUE(folder);
  EXPECT_TRUE(folder->is_absolute()) << *folder;
  EXPECT_TRUE(fs::exists(*folder / "one.h.gch"));
}

}  // namespace
}  // namespace headway::cpu
